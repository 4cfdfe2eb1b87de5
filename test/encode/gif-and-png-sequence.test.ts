import {mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {assembleOutput} from '../../src/lib/encode/assemble-output.js'
import {clampFpsToFormat} from '../../src/lib/plan/format-capabilities.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {HEIGHT, WIDTH, encodeSegments, ffmpeg, makeFrames, probeVideoStream, useScratchDir, testPlan} from './support/encode-fixtures.js'
import {gifLoopCount} from '../support/media.js'

describe('gif', () => {
  const scratch = useScratchDir()
  let dir: string
  let frames: Buffer[]
  beforeAll(async () => {
    dir = scratch()
    frames = await makeFrames({count: 30, imageFormat: 'jpeg'})
  })

  it('encodes all workers\' frames once with one palette, at 30 fps, looping as asked', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'gif', totalFrames: 30, encode: {gifLoop: 3}})
    const segments = await encodeSegments(plan, frames, [10, 12, 8], join(dir, 'work-gif'), info)
    const output = join(dir, 'out.gif')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})

    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({codec_name: 'gif', width: WIDTH, height: HEIGHT, nb_read_frames: '30'})
    const [num, den] = stream.avg_frame_rate.split('/').map(Number)
    expect(num / den).toBeGreaterThan(29.5)
    expect(num / den).toBeLessThanOrEqual(30)
    expect(gifLoopCount(await readFile(output))).toBe(3)
  })

  it('loops forever with --gif-loop 0', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'gif', totalFrames: 6, encode: {gifLoop: 0}})
    const segments = await encodeSegments(plan, frames, [3, 3], join(dir, 'work-gif-0'), info)
    const output = join(dir, 'forever.gif')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})
    expect(gifLoopCount(await readFile(output))).toBe(0)
  })

  it('caps the frame rate at 30: the planner clamps, and a plan above the cap is refused', async () => {
    const gif = getFormat('gif')
    expect(gif.maxFps).toBe(30)
    expect(clampFpsToFormat(gif, {num: 60, den: 1})).toEqual({num: 30, den: 1})
    expect(clampFpsToFormat(gif, {num: 24000, den: 1001})).toEqual({num: 24000, den: 1001})
    expect(clampFpsToFormat(getFormat('mp4'), {num: 60, den: 1})).toEqual({num: 60, den: 1})

    const info = await ffmpeg()
    const plan = testPlan({format: 'gif', fps: {num: 60, den: 1}, totalFrames: 4})
    const segments = await encodeSegments(plan, frames, [4], join(dir, 'work-gif-60'), info)
    await expect(assembleOutput({plan, segments, outputPath: join(dir, 'fast.gif'), ffmpeg: info})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: expect.stringContaining('--fps'),
    })
    expect(await readdir(dir)).not.toContain('fast.gif')
  })
})

describe('png-sequence', () => {
  const scratch = useScratchDir()
  let dir: string
  let frames: Buffer[]
  beforeAll(async () => {
    dir = scratch()
    frames = await makeFrames({count: 12, imageFormat: 'png', alpha: true})
  })

  const names = (count: number) => Array.from({length: count}, (_, i) => `frame_${String(i).padStart(6, '0')}.png`)

  it('writes <output>/frame_NNNNNN.png, 0-based, byte-identical to the captured RGBA PNGs', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'png-sequence', totalFrames: 12})
    const segments = await encodeSegments(plan, frames, [5, 4, 3], join(dir, 'work-seq'), info)
    const output = join(dir, 'renders', 'seq')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})

    expect((await readdir(output)).sort()).toEqual(names(12))
    expect(await readFile(join(output, 'frame_000007.png'))).toEqual(frames[7])
    expect(await probeVideoStream(join(output, 'frame_000000.png'), false)).toMatchObject({pix_fmt: 'rgba', width: WIDTH, height: HEIGHT})
    expect((await readdir(join(dir, 'renders'))).filter((name) => name.startsWith('.'))).toEqual([])
  })

  it('renders into an existing directory: keeps other files, replaces frames, drops stale frames', async () => {
    const info = await ffmpeg()
    const output = join(dir, 'existing')
    await mkdir(output)
    await writeFile(join(output, 'notes.txt'), 'mine')
    await writeFile(join(output, 'frame_000020.png'), 'stale')
    await writeFile(join(output, 'frame_000001.png'), 'old')
    const plan = testPlan({format: 'png-sequence', totalFrames: 4})
    const segments = await encodeSegments(plan, frames, [2, 2], join(dir, 'work-existing'), info)
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})

    expect((await readdir(output)).sort()).toEqual([...names(4), 'notes.txt'])
    expect(await readFile(join(output, 'frame_000001.png'))).toEqual(frames[1])
  })

  it('refuses an --output that is a file', async () => {
    const info = await ffmpeg()
    const output = join(dir, 'a-file')
    await writeFile(output, 'x')
    const plan = testPlan({format: 'png-sequence', totalFrames: 2})
    const segments = await encodeSegments(plan, frames, [2], join(dir, 'work-file'), info)
    await expect(assembleOutput({plan, segments, outputPath: output, ffmpeg: info})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: expect.stringContaining('--output'),
    })
  })
})
