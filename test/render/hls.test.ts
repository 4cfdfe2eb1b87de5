import {copyFile, mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {publishCompanionFiles} from '../../src/lib/encode/companion-files.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import type {RenderResult} from '../../src/lib/render/render-composition.js'
import {serverFetch} from '../../src/lib/server-client/server-api.js'
import {withWholeTargetDuration} from '../../plugins/formats/hls.js'
import {decodedFrameHashes, ffprobe, probeVideoStream} from '../support/media.js'
import {PROCESSES} from '../support/timeouts.js'
import {openStream, startTestServer} from '../server/support/test-server.js'
import {renderFixture, useScratchDir} from './support.js'
import {useBrowserPool} from '../support/browser-pool.js'

/** blocks.html is 2 s at 30 fps: 0.5 s segments give 4 media segments of 15 frames. */
const SEGMENT_SECONDS = 0.5

async function filesOf(directory: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(directory)).sort()
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(directory, name))] as const)))
}

describe('hls: a playlist and MPEG-TS segments from the format plugin', PROCESSES, () => {
  const pool = useBrowserPool()
  const scratch = useScratchDir()
  let one: string
  let two: string
  let mp4: string
  let rendered: RenderResult

  beforeAll(async () => {
    one = join(scratch(), 'one', 'clip.m3u8')
    two = join(scratch(), 'two', 'clip.m3u8')
    mp4 = join(scratch(), 'clip.mp4')
    // -o *.m3u8 chooses the format; the same composition as an mp4 on the same keyframe grid.
    rendered = await renderFixture('blocks.html', {output: one, workers: 1, hlsSegmentSeconds: SEGMENT_SECONDS}, undefined, pool)
    await renderFixture('blocks.html', {output: two, format: 'hls', workers: 2, hlsSegmentSeconds: SEGMENT_SECONDS}, undefined, pool)
    await renderFixture('blocks.html', {output: mp4, workers: 2, keyframeInterval: SEGMENT_SECONDS}, undefined, pool)
  })

  it('writes a VOD playlist naming one segment per 0.5 s, each 0.5 s long, beside it', async () => {
    expect(rendered.plan.format).toBe('hls')
    const playlist = await readFile(one, 'utf8')
    const segments = [...playlist.matchAll(/^#EXTINF:([\d.]+),\n(.+)$/gm)]
    expect(segments.map((match) => match[2])).toEqual(['clip_00000.ts', 'clip_00001.ts', 'clip_00002.ts', 'clip_00003.ts'])
    expect(segments.every((match) => Number(match[1]) === SEGMENT_SECONDS)).toBe(true)
    expect(playlist).toContain('#EXT-X-PLAYLIST-TYPE:VOD')
    expect(playlist).toContain('#EXT-X-ENDLIST')
    // Every EXTINF rounded is at most the whole-second target (RFC 8216), so 1, not ffmpeg's 0.
    expect(playlist).toMatch(/^#EXT-X-TARGETDURATION:1$/m)
    expect((await readdir(dirname(one))).sort()).toEqual(['clip.m3u8', 'clip_00000.ts', 'clip_00001.ts', 'clip_00002.ts', 'clip_00003.ts'])
    // The size reported is the playlist's and its segments'.
    const files = await filesOf(dirname(one))
    expect(rendered.bytes).toBe([...files.values()].reduce((sum, bytes) => sum + bytes.length, 0))
  })

  it('ffprobe reads the playlist: H.264 in MPEG-TS, every frame', async () => {
    const stream = await probeVideoStream(one)
    expect(stream).toMatchObject({codec_name: 'h264', pix_fmt: 'yuv420p', width: 320, height: 180, nb_read_frames: '60'})
    const format = (await ffprobe(one, ['-show_format'])).format as {format_name: string}
    expect(format.format_name).toBe('hls')
    const segment = (await ffprobe(join(dirname(one), 'clip_00001.ts'), ['-show_format', '-count_packets', '-show_streams'])) as {
      format: {format_name: string}
      streams: {nb_read_packets: string}[]
    }
    expect(segment.format.format_name).toBe('mpegts')
    expect(segment.streams[0].nb_read_packets).toBe('15')
  })

  it('the segments decode to the same frames as the mp4 of the composition', async () => {
    const fromMp4 = await decodedFrameHashes(mp4)
    expect(fromMp4).toHaveLength(60)
    expect(await decodedFrameHashes(one)).toEqual(fromMp4)
  })

  it('is byte-identical at 1 and 2 workers, playlist and segments', async () => {
    const [a, b] = await Promise.all([filesOf(dirname(one)), filesOf(dirname(two))])
    expect([...b.keys()]).toEqual([...a.keys()])
    for (const [name, bytes] of a) expect(b.get(name)?.equals(bytes), name).toBe(true)
  })

  it('the default segment length is 6 s: a 2 s composition is one segment', async () => {
    const output = join(scratch(), 'default', 'clip.m3u8')
    await renderFixture('blocks.html', {output, format: 'hls', scale: 0.5}, undefined, pool)
    const playlist = await readFile(output, 'utf8')
    expect([...playlist.matchAll(/^#EXTINF:([\d.]+),$/gm)].map((match) => Number(match[1]))).toEqual([2])
    expect(playlist).toMatch(/^#EXT-X-TARGETDURATION:2$/m)
  })

  it('engine serve: the playlist and its segments with their HLS media types', async () => {
    const server = await startTestServer({}, {
      render: async (request) => {
        const output = request.options.output!
        await mkdir(dirname(output), {recursive: true})
        const stem = basename(output, '.m3u8')
        await writeFile(output, (await readFile(one, 'utf8')).replaceAll('clip_', `${stem}_`))
        for (const name of await readdir(dirname(one))) {
          if (name.endsWith('.ts')) await copyFile(join(dirname(one), name), join(dirname(output), name.replace('clip', stem)))
        }
        return {...rendered, output, plan: {...rendered.plan, format: 'hls'}}
      },
    })
    try {
      const final = await openStream(server.connection, {composition: 'comp.html', format: 'hls'}).done
      if (final.type !== 'complete') throw new Error(JSON.stringify(final))
      // Addressed by its file name, so that the names inside resolve beside it.
      expect(final.outputUrl).toBe(`/render/${final.requestId}/output/comp.m3u8`)
      const playlist = await serverFetch(server.connection, final.outputUrl)
      expect(playlist.headers.get('content-type')).toBe('application/vnd.apple.mpegurl')
      const first = /^comp_\d+\.ts$/m.exec(await playlist.text())![0]
      const segmentUrl = new URL(first, new URL(final.outputUrl, server.connection.url)).pathname
      expect(segmentUrl).toBe(`/render/${final.requestId}/output/comp_00000.ts`)
      const segment = await serverFetch(server.connection, segmentUrl)
      expect(segment.status).toBe(200)
      expect(segment.headers.get('content-type')).toBe('video/mp2t')
      expect(Buffer.from(await segment.arrayBuffer()).equals(await readFile(join(dirname(one), 'clip_00000.ts')))).toBe(true)
      const other = await fetch(new URL(`/render/${final.requestId}/output/comp.html`, server.connection.url), {headers: {authorization: `Bearer ${server.connection.token}`}})
      expect(other.status).toBe(404)
    } finally {
      await server.close()
    }
  })

  it('a plugin cannot place files beside the output that are not its companions', async () => {
    const staging = join(scratch(), 'staging')
    await mkdir(staging, {recursive: true})
    await writeFile(join(staging, 'index.html'), 'not a segment')
    await expect(publishCompanionFiles(getFormat('hls'), staging, join(scratch(), 'out', 'clip.m3u8'))).rejects.toMatchObject({code: 'ENCODE_FAILED'})
  })

  it('the target duration is the longest segment rounded up', () => {
    const playlist = '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.400000,\na.ts\n#EXTINF:1.000000,\nb.ts\n'
    expect(withWholeTargetDuration(playlist)).toContain('#EXT-X-TARGETDURATION:3\n')
  })
})
