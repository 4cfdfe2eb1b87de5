import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {parseCaptions} from '../../src/lib/captions/parse-captions.js'
import {cuesForOutput, writeWebVtt} from '../../src/lib/captions/write-webvtt.js'
import {renderBatch} from '../../src/lib/batch/index.js'
import {compileComposition} from '../../src/lib/compose/index.js'
import {lintComposition} from '../../src/lib/lint/lint-composition.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {decodedFrameHashes, ffprobe, near, pixelAt} from '../support/media.js'
import {PROCESSES} from '../support/timeouts.js'
import {renderFixture, useScratchDir} from './support.js'
import {useBrowserPool} from '../support/browser-pool.js'

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'captions')
const COMPOSITION = join('..', 'captions', 'captions.html')
const WHITE = {r: 255, g: 255, b: 255}
const BLACK = {r: 0, g: 0, b: 0}
/** Inside each caption box, below its first line of text: white while a cue shows, the black page otherwise. */
const FILE_BOX = [270, 155] as const
const VARIABLE_BOX = [270, 55] as const

const EXPECTED_SIDECAR = `WEBVTT

00:00:00.000 --> 00:00:00.400
Row caption

00:00:00.500 --> 00:00:01.000
Hello there

00:00:01.500 --> 00:00:01.800
Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;
`

async function subtitlePackets(file: string): Promise<{codec: string; sizes: number[]}> {
  const streams = (await ffprobe(file, ['-select_streams', 's:0', '-show_streams'])).streams as {codec_name: string}[]
  const packets = (await ffprobe(file, ['-select_streams', 's:0', '-show_entries', 'packet=size'])).packets as {size: string}[]
  return {codec: streams[0]?.codec_name, sizes: packets.map((packet) => Number(packet.size))}
}

describe('captions: cues drawn on the virtual clock, a sidecar and a subtitle track', PROCESSES, () => {
  const pool = useBrowserPool()
  const scratch = useScratchDir()
  let one: string
  let two: string

  beforeAll(async () => {
    one = join(scratch(), 'one', 'clip.mp4')
    two = join(scratch(), 'two', 'clip.mp4')
    await renderFixture(COMPOSITION, {output: one, workers: 1, captionsSidecar: true, captionsTrack: true}, undefined, pool)
    await renderFixture(COMPOSITION, {output: two, workers: 2}, undefined, pool)
  })

  it('a file cue shows from its start (inclusive) to its end (exclusive), frame-exact', async () => {
    // 0.5 s -> 1.0 s at 30 fps: frames 15-29; 1.5 s -> 1.8 s: frames 45-53.
    const expected: [number, typeof WHITE][] = [[14, BLACK], [15, WHITE], [29, WHITE], [30, BLACK], [44, BLACK], [45, WHITE], [53, WHITE], [54, BLACK]]
    for (const [frame, colour] of expected) expect(near(await pixelAt(one, frame, ...FILE_BOX), colour), `frame ${frame}`).toBe(true)
  })

  it('a string variable names the caption file (a per-row file in a batch)', async () => {
    // row.srt: 0 -> 0.4 s, frames 0-11.
    for (const [frame, colour] of [[0, WHITE], [11, WHITE], [12, BLACK]] as const) {
      expect(near(await pixelAt(one, frame, ...VARIABLE_BOX), colour), `frame ${frame}`).toBe(true)
    }
  })

  it('draws the same frames at 1 and 2 workers', async () => {
    const hashes = await decodedFrameHashes(one)
    expect(hashes).toHaveLength(60)
    expect(await decodedFrameHashes(two)).toEqual(hashes)
  })

  it('--captions-sidecar writes every cue as WebVTT beside the output, text escaped', async () => {
    expect(await readFile(join(scratch(), 'one', 'clip.vtt'), 'utf8')).toBe(EXPECTED_SIDECAR)
  })

  it('--captions-track embeds a mov_text track in mp4 with one sample per cue (and empty gaps between)', async () => {
    const {codec, sizes} = await subtitlePackets(one)
    expect(codec).toBe('mov_text')
    // mov_text fills gaps with empty samples (2 bytes: a zero text length).
    expect(sizes.filter((size) => size > 2)).toHaveLength(3)
  })

  it('--captions-track embeds a WebVTT track in webm, one packet per cue', async () => {
    const output = join(scratch(), 'clip.webm')
    await renderFixture(COMPOSITION, {output, format: 'webm', scale: 0.5, captionsTrack: true}, undefined, pool)
    const {codec, sizes} = await subtitlePackets(output)
    expect(codec).toBe('webvtt')
    expect(sizes).toHaveLength(3)
  })

  it('--captions-track is refused for a format without subtitle tracks, and caption flags for a composition without captions', async () => {
    await expect(renderFixture(COMPOSITION, {output: join(scratch(), 'x.gif'), captionsTrack: true}, undefined, pool)).rejects.toMatchObject({code: 'INVALID_FLAG', message: expect.stringContaining('--captions-track')})
    await expect(renderFixture('blocks.html', {output: join(scratch(), 'x.mp4'), captionsSidecar: true}, undefined, pool)).rejects.toMatchObject({code: 'INVALID_FLAG', message: expect.stringContaining('shows no captions')})
  })

  it('a --frames range gets its cues on its own clock, clipped', () => {
    const cues = [{startMs: 500, endMs: 1000, text: 'a'}, {startMs: 1500, endMs: 1800, text: 'b'}]
    expect(cuesForOutput([cues], 800, 1600)).toEqual([{startMs: 0, endMs: 200, text: 'a'}, {startMs: 700, endMs: 800, text: 'b'}])
    expect(writeWebVtt([{startMs: 3_723_004, endMs: 3_723_500, text: 'x\n\ny'}])).toBe('WEBVTT\n\n01:02:03.004 --> 01:02:03.500\nx\ny\n')
  })

  it('a bad WebVTT or SubRip file is refused with its line number', async () => {
    const source = (file: string) => ({label: file, field: 'data-captions'})
    expect(() => parseCaptions('WEBVTT\n\n00:00.500 --> 00:01.000\nfine\n\n00:01.000 --> 00:01.5\nbroken\n', source('bad.vtt'))).toThrow(/^bad\.vtt line 6: /)
    for (const [file, line] of [['bad.vtt', 6], ['bad.srt', 6]] as const) {
      let error: unknown
      try {
        parseCaptions(await readFile(join(FIXTURE, file), 'utf8'), source(file))
      } catch (caught) {
        error = caught
      }
      expect(error, file).toMatchObject({code: 'CAPTIONS_INVALID', details: {file, line}})
    }
    expect(() => parseCaptions('1\n00:00:01,000 --> 00:00:02,000\nok\n\nnot a number\n', source('x.srt'))).toThrow(/x\.srt line 5: expected a cue number/)
  })

  it('compile and lint refuse a composition whose caption file is bad, naming the file and the line', async () => {
    const page = join(scratch(), 'bad.html')
    await writeFile(join(scratch(), 'bad.vtt'), await readFile(join(FIXTURE, 'bad.vtt')))
    await writeFile(page, '<html><body><div data-composition-id="c" data-width="320" data-height="180" data-duration="1"><div data-captions="bad.vtt"></div></div></body></html>')
    await expect(compileComposition(page, {projectDir: scratch()})).rejects.toMatchObject({code: 'CAPTIONS_INVALID', message: expect.stringMatching(/^bad\.vtt line 6: /)})
    // engine lint finds it too, with the line.
    const findings = await lintComposition(page)
    expect(findings).toContainEqual(expect.objectContaining({code: 'captions-invalid', severity: 'error', message: expect.stringContaining('bad.vtt line 6: ')}))
  })

  it('a batch gives each row its own captions through the variable: a file path, or the cue text itself', async () => {
    const batchFile = join(scratch(), 'rows.json')
    await writeFile(batchFile, JSON.stringify([{subs: 'row.srt'}, {subs: '1\n00:00:01,000 --> 00:00:01,500\nSecond row\n'}]))
    await renderBatch({
      composition: join(FIXTURE, 'captions.html'),
      batchFile,
      options: resolveRenderOptions({quality: 'draft', scale: 0.5, output: join(scratch(), 'batch', '{index}.mp4')}),
      render: renderComposition,
      cwd: scratch(),
    })
    const box = (row: number, frame: number) => pixelAt(join(scratch(), 'batch', `${row}.mp4`), frame, VARIABLE_BOX[0] / 2, VARIABLE_BOX[1] / 2)
    // Row 0: row.srt, 0-0.4 s; row 1: 1.0-1.5 s.
    expect(near(await box(0, 5), WHITE) && near(await box(0, 35), BLACK)).toBe(true)
    expect(near(await box(1, 5), BLACK) && near(await box(1, 35), WHITE)).toBe(true)
  })
})
