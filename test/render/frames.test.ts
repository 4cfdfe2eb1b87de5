import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {copyFile, readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {beforeAll, describe, expect, it} from 'vitest'
import {readManifest, renderBatch} from '../../src/lib/batch/index.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {startServer} from '../../src/lib/server/start-server.js'
import {renderOnServer} from '../../src/lib/server-client/render-on-server.js'
import {decodedFrameHashes, decodeFrame, ffprobe, probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {FIXTURES, renderFixture, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

const exec = promisify(execFile)
const BLOCKS = join(FIXTURES, 'blocks.html')
/** blocks.html at 10 fps: 20 frames, cut into segments of 5 (0-4, 5-9, 10-14, 15-19). */
const FPS = 10

const rgba = (file: string, index = 0) => decodeFrame(file, index, 'format=rgba')
const sha256 = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex')
const frameCount = async (file: string) => Number((await probeVideoStream(file)).nb_read_frames)

function meanDifference(a: Buffer, b: Buffer): number {
  if (a.length !== b.length || a.length === 0) throw new Error(`frames differ in size: ${a.length} vs ${b.length}`)
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!)
  return sum / a.length
}

/** The decoded audio as 48 kHz mono samples. */
async function audioSamples(file: string): Promise<Float32Array> {
  const {stdout} = await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-f', 'f32le', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  })
  return new Float32Array(stdout.buffer, stdout.byteOffset, stdout.length / 4)
}

/** Loudest sample between two times. */
function peak(samples: Float32Array, fromSeconds: number, toSeconds: number): number {
  let loudest = 0
  for (let i = Math.round(fromSeconds * 48_000); i < Math.min(samples.length, Math.round(toSeconds * 48_000)); i++) loudest = Math.max(loudest, Math.abs(samples[i]!))
  return loudest
}

/** Seconds until the first sample louder than `threshold`. */
function onset(samples: Float32Array, threshold: number): number {
  return samples.findIndex((sample) => Math.abs(sample) > threshold) / 48_000
}

describe('engine render --frames A-B', PROCESSES, () => {
  const scratch = useScratchDir()
  const pool = useBrowserPool()
  const blocks = (options: RenderOptionsInput) => renderFixture('blocks.html', {fps: FPS, ...options}, undefined, pool)
  let fullFrames: string
  let fullMp4: string

  beforeAll(async () => {
    fullFrames = join(scratch(), 'full-frames')
    fullMp4 = join(scratch(), 'full.mp4')
    await blocks({format: 'png-sequence', output: fullFrames})
    await blocks({output: fullMp4, workers: 1})
  }, 120_000)

  it('png-sequence: exactly frames A..B, each pixel for pixel the full render\'s frame, named by composition frame', async () => {
    const output = join(scratch(), 'range-frames')
    const result = await blocks({format: 'png-sequence', output, frames: '7-12', workers: 2})
    const names = (await readdir(output)).sort()
    expect(names).toEqual(['frame_000007.png', 'frame_000008.png', 'frame_000009.png', 'frame_000010.png', 'frame_000011.png', 'frame_000012.png'])
    for (const name of names) expect((await rgba(join(output, name))).equals(await rgba(join(fullFrames, name)))).toBe(true)
    expect(result).toMatchObject({totalFrames: 6, durationSeconds: 0.6})
    expect(result.plan).toMatchObject({totalFrames: 20, frameRange: {start: 7, end: 13}})
    expect(result.events.find((event) => event.type === 'start')).toMatchObject({totalFrames: 6, firstFrame: 7, durationSeconds: 0.6})
    expect(result.events.find((event) => event.type === 'done')).toMatchObject({totalFrames: 6, durationSeconds: 0.6})
  })

  it('mp4 on the segment grid: the range is the full render\'s segments, so its frames decode identically', async () => {
    const output = join(scratch(), 'aligned.mp4')
    await blocks({output, frames: '5-14', workers: 2})
    expect(await frameCount(output)).toBe(10)
    expect(await decodedFrameHashes(output)).toEqual((await decodedFrameHashes(fullMp4)).slice(5, 15))
    const stream = (await ffprobe(output, ['-select_streams', 'v:0', '-show_entries', 'stream=start_time,duration'])).streams as {start_time: string; duration: string}[]
    expect(Number(stream[0]!.start_time)).toBe(0)
    expect(Number(stream[0]!.duration)).toBeCloseTo(1, 3)
  })

  it('mp4 off the grid: the first output frame is frame A of the full render, the last is frame B', async () => {
    const output = join(scratch(), 'unaligned.mp4')
    const result = await blocks({output, frames: '7-12'})
    expect(result.totalFrames).toBe(6)
    expect(await frameCount(output)).toBe(6)
    const [first, last, full7, full12, full6] = await Promise.all([rgba(output, 0), rgba(output, 5), rgba(fullMp4, 7), rgba(fullMp4, 12), rgba(fullMp4, 6)])
    expect(meanDifference(first, full7)).toBeLessThan(2)
    expect(meanDifference(last, full12)).toBeLessThan(2)
    // Neighbours differ (the green square moves 15 px a frame), so the match is not a coincidence.
    expect(meanDifference(first, full6)).toBeGreaterThan(meanDifference(first, full7) * 2)
  })

  it('the same range is the same file with 1 or 2 workers, and --frames 0- is the full render', async () => {
    const [one, two, all] = [join(scratch(), 'w1.mp4'), join(scratch(), 'w2.mp4'), join(scratch(), 'all.mp4')]
    await blocks({output: one, frames: '3-16', workers: 1})
    await blocks({output: two, frames: '3-16', workers: 2})
    expect(await sha256(one)).toBe(await sha256(two))
    const whole = await blocks({output: all, frames: '0-', workers: 1})
    expect(whole.plan.frameRange).toBeUndefined()
    expect(await sha256(all)).toBe(await sha256(fullMp4))
  })

  // Alpha formats are compared with the (transparent) PNG frames, GIF with the opaque mp4; only the
  // strip the green square moves along, where neighbouring frames differ most.
  it.each([
    ['webm', 'range.webm', ['-c:v', 'libvpx-vp9'], 'crop=320:20:0:160,format=rgba'],
    ['mov', 'range.mov', [], 'crop=320:20:0:160,format=rgba'],
    ['gif', 'range.gif', [], 'crop=320:20:0:160,format=rgb24'],
  ] as const)('%s: A- to the end holds the last frames, starting at frame A', async (format, file, decoderArgs, filter) => {
    const output = join(scratch(), file)
    await blocks({output, format, frames: '13-', workers: 2})
    expect(await frameCount(output)).toBe(7)
    const first = await decodeFrame(output, 0, filter, decoderArgs)
    const reference = (frame: number) => (format === 'gif' ? decodeFrame(fullMp4, frame, filter) : decodeFrame(join(fullFrames, `frame_0000${frame}.png`), 0, filter))
    const [full13, full12] = await Promise.all([reference(13), reference(12)])
    expect(meanDifference(first, full13) * 4).toBeLessThan(meanDifference(first, full12))
  })

  it('N renders one frame', async () => {
    const output = join(scratch(), 'one.mp4')
    const result = await blocks({output, frames: 19})
    expect(result.totalFrames).toBe(1)
    expect(await frameCount(output)).toBe(1)
    expect(meanDifference(await rgba(output, 0), await rgba(fullMp4, 19))).toBeLessThan(2)
  })

  it('cuts the audio to the range: a beep that began before frame A plays from the first sample, one after B is gone', async () => {
    const dir = scratch()
    await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=0.3', '-af', 'volume=0.5', join(dir, 'beep.wav')])
    const html = (await readFile(BLOCKS, 'utf8')).replace('<div id="mover"></div>', '<div id="mover"></div><audio src="beep.wav" data-start="0.9"></audio><audio src="beep.wav" data-start="1.6"></audio>')
    await writeFile(join(dir, 'beeps.html'), html)
    const render = (frames: string, output: string) =>
      renderComposition({composition: join(dir, 'beeps.html'), options: resolveRenderOptions({quality: 'draft', fps: FPS, output: join(dir, output), frames}), pool})

    await render('0-', 'beeps-full.mp4')
    const full = await audioSamples(join(dir, 'beeps-full.mp4'))
    const loud = peak(full, 0.95, 1.15)
    expect(loud).toBeGreaterThan(0.03)

    // Frames 10-14: t = 1.0-1.5 s. The first beep (0.9-1.2 s) is 0.2 s from its end; the second (1.6 s) is after the range.
    await render('10-14', 'beeps-10-14.mp4')
    const samples = await audioSamples(join(dir, 'beeps-10-14.mp4'))
    expect(peak(samples, 0, 0.15)).toBeGreaterThan(loud * 0.8)
    expect(peak(samples, 0.25, 0.5)).toBeLessThan(loud * 0.05)
    const audio = (await ffprobe(join(dir, 'beeps-10-14.mp4'), ['-select_streams', 'a:0', '-show_entries', 'stream=duration'])).streams as {duration: string}[]
    expect(Number(audio[0]!.duration)).toBeCloseTo(0.5, 2)

    // Frames 15-19: t = 1.5-2 s; only the second beep, 0.1 s in, as in the full render.
    await render('15-19', 'beeps-15-19.mp4')
    const later = await audioSamples(join(dir, 'beeps-15-19.mp4'))
    expect(peak(later, 0, 0.08)).toBeLessThan(loud * 0.05)
    expect(peak(later, 0.12, 0.38)).toBeGreaterThan(loud * 0.8)
    expect(Math.abs(onset(later, loud / 2) - (onset(full.subarray(1.5 * 48_000), loud / 2)))).toBeLessThan(0.002)
  })

  it('--poster inside the range comes from the range\'s capture; outside it is refused before anything is written', async () => {
    const output = join(scratch(), 'poster-range')
    const result = await blocks({format: 'png-sequence', output, frames: '10-19', poster: 1.25, posterFormat: 'png'})
    expect((await rgba(result.poster!)).equals(await rgba(join(fullFrames, 'frame_000012.png')))).toBe(true)
    const refused = join(scratch(), 'poster-outside.mp4')
    await expect(blocks({output: refused, frames: '10-19', poster: 0.5})).rejects.toThrow(
      '--poster 0.5: that is frame 5, outside --frames 10-19; give a time from 1.000 to below 2.000 s (composition time), or widen --frames',
    )
    expect(existsSync(refused)).toBe(false)
  })

  // The messages come from the library; one CLI run checks how the CLI presents them (exit 1, one error line).
  it('refuses A>B (the CLI: exit 1), frames past the end and malformed values, naming the flag, the value and the fix, and writes nothing', async () => {
    const output = join(scratch(), 'refused.mp4')
    const reversed = await runCli(['render', BLOCKS, '--fps', String(FPS), '--frames', '12-4', '-o', output])
    expect(reversed.code).toBe(1)
    expect(reversed.stderr).toContain('error [INVALID_FLAG]: --frames: "12-4" is invalid (frame 12 comes after frame 4; write the lower frame first: 4-12)')
    await expect(blocks({output, frames: '15-20'})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: '--frames 15-20: frame 20 is past the end; the composition has 20 frames (0-19: 2.000 s at 10 fps), so end at 19 at most: --frames 15-19 (or 15- to the end)',
    })
    expect(() => resolveRenderOptions({fps: FPS, output, frames: '1..5'})).toThrow(/--frames: "1\.\.5" is invalid \(write A-B for frames A to B \(0-based, inclusive\)/)
    expect(existsSync(output)).toBe(false)
  }, 60_000)

  it('a batch renders each row\'s range, records its frame count, and a resume with other frames is refused', async () => {
    const dir = scratch()
    const rows = join(dir, 'rows.json')
    await writeFile(rows, JSON.stringify([{color: '#ff0000'}, {color: '#00ffff'}]))
    const batch = (frames: string | undefined, resume = false) =>
      renderBatch({
        composition: BLOCKS,
        batchFile: rows,
        options: resolveRenderOptions({fps: FPS, quality: 'draft', output: join(dir, 'batch/{index}.mp4'), ...(frames !== undefined && {frames})}),
        resume,
        render: (request) => renderComposition({...request, pool}),
      })
    const summary = await batch('5-9')
    const manifest = (await readManifest(summary.manifest))!
    expect(manifest.settings.frames).toBe('5-9')
    expect(manifest.rows.map((row) => [row.status, row.totalFrames])).toEqual([['completed', 5], ['completed', 5]])
    expect(await frameCount(join(dir, 'batch/1.mp4'))).toBe(5)
    expect((await batch('5-9', true)).counts.completed).toBe(2)
    await expect(batch('5-', true)).rejects.toThrow(/other settings \(frames "5-9" -> "5-"\)/)
    await expect(batch(undefined, true)).rejects.toThrow(/other settings \(frames "5-9" -> not set \(the default\)\)/)
  }, 120_000)

  it('engine serve takes "frames" in the body; render --server downloads exactly that range', async () => {
    const root = scratch()
    await copyFile(BLOCKS, join(root, 'blocks.html'))
    const server = await startServer(await resolveServerSettings({port: 0, root, maxConcurrentRenders: 1}, {}))
    try {
      const output = join(root, 'served.mp4')
      const result = await renderOnServer({
        server: server.url,
        composition: 'blocks.html',
        options: resolveRenderOptions({fps: FPS, quality: 'draft', workers: 1, output, frames: '4-11'}),
      })
      expect(result).toMatchObject({totalFrames: 8, durationSeconds: 0.8})
      expect(await frameCount(output)).toBe(8)
      expect(meanDifference(await rgba(output, 0), await rgba(fullMp4, 4))).toBeLessThan(2)
      await expect(
        renderOnServer({server: server.url, composition: 'blocks.html', options: resolveRenderOptions({fps: FPS, quality: 'draft', output: join(root, 'late.mp4'), frames: '4-40'})}),
      ).rejects.toThrow(/--frames 4-40: frame 40 is past the end/)
    } finally {
      await server.close()
    }
  }, 120_000)
})
