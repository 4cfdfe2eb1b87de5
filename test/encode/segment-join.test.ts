import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {concatList, copySegmentsArgs} from '../../src/lib/encode/concat-input.js'
import {listBitstreamFilters, parseBitstreamFilterList} from '../../src/lib/encode/list-bitstream-filters.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {skipWithout} from '../support/capabilities.js'
import {probePackets} from '../support/media.js'
import {PROCESSES} from '../support/timeouts.js'

const run = promisify(execFile)
// The Lambda bundle's ffmpeg: a 2018 static build, older than the `setts` bitstream filter.
const OLD_FFMPEG = join(REPO_ROOT, 'node_modules', '@ffmpeg-installer', 'linux-x64', 'ffmpeg')
const FPS = {num: 30, den: 1}

describe('joining segments by stream copy', PROCESSES, () => {
  let scratch: string
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-join-'))
  })
  afterAll(async () => {
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('the concat list starts every file within half a microsecond of its frame time, however many precede it', () => {
    const segments = Array.from({length: 300}, (_, index) => ({path: `/s/${index}.mp4`, range: {start: index, end: index + 1}}))
    const durations = [...concatList(segments, FPS).matchAll(/^duration (\S+)$/gm)].map((match) => Math.round(Number(match[1]) * 1e6))
    let start = 0
    for (const [index, micros] of durations.entries()) {
      start += micros
      expect(Math.abs(start - ((index + 1) * 1e6) / 30)).toBeLessThanOrEqual(0.5)
    }
    // A quote in a path is closed, escaped and reopened.
    expect(concatList([{path: "/a/it's.mp4", range: {start: 0, end: 1}}], FPS)).toContain("file '/a/it'\\''s.mp4'")
  })

  it('reads the bitstream filter list of an ffmpeg build', async () => {
    expect([...parseBitstreamFilterList('Bitstream filters:\naac_adtstoasc\nsetts\nnull\n')]).toEqual(['aac_adtstoasc', 'setts', 'null'])
    expect((await listBitstreamFilters('ffmpeg')).has('setts')).toBe(true)
  })

  it('an ffmpeg without setts joins 3 segments into 30 frames on the exact frame grid', async (context) => {
    skipWithout(context, 'old-ffmpeg', existsSync(OLD_FFMPEG), '@ffmpeg-installer/linux-x64, an optional dependency scripts/setup.sh installs')
    expect((await listBitstreamFilters(OLD_FFMPEG)).has('setts')).toBe(false)
    const segments = []
    for (let index = 0; index < 3; index++) {
      const path = join(scratch, `segment-${index}.mp4`)
      const source = `testsrc2=size=64x36:rate=30,trim=start_frame=${index * 10}:end_frame=${index * 10 + 10},setpts=PTS-STARTPTS`
      await run(OLD_FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', source, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-g', '10', path])
      segments.push({path, range: {start: index * 10, end: index * 10 + 10}})
    }
    const args = await copySegmentsArgs(segments, FPS, join(scratch, 'list.txt'), OLD_FFMPEG)
    expect(args).not.toContain('-bsf:v')
    const output = join(scratch, 'joined.mp4')
    await run(OLD_FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', ...args, output])
    const packets = (await probePackets(output)).sort((a, b) => a.pts - b.pts)
    expect(packets).toHaveLength(30)
    const timeBase = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=time_base', '-of', 'csv=p=0', output])
    const [num, den] = timeBase.stdout.trim().split('/').map(Number)
    for (const [index, packet] of packets.entries()) expect(packet.pts * (num / den)).toBeCloseTo(index / 30, 6)
  })
})
