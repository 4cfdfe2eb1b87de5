import {readFile, readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {gifLoopCount, near, pixelAt, probeVideoStream} from '../support/media.js'
import {renderFixture, useScratchDir} from './support.js'
import {useBrowserPool} from '../support/browser-pool.js'

const VP9_ALPHA = ['-c:v', 'libvpx-vp9']
const RED = {r: 255, g: 0, b: 0}
const BLUE = {r: 0, g: 0, b: 255}

describe('engine render: every output format, decoded', () => {
  const pool = useBrowserPool()
  const scratch = useScratchDir()

  it('mp4: H.264, frame count = duration x fps, clip colours at their times', async () => {
    const output = join(scratch(), 'blocks.mp4')
    const result = await renderFixture('blocks.html', {output, workers: 2}, undefined, pool)
    expect(result.output).toBe(output)
    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({codec_name: 'h264', pix_fmt: 'yuv420p', width: 320, height: 180, r_frame_rate: '30/1', nb_read_frames: '60'})
    // Frame 15 (t = 0.5 s): the first clip, red; frame 45 (t = 1.5 s): the second clip, blue.
    expect(near(await pixelAt(output, 15, 80, 90), RED)).toBe(true)
    expect(near(await pixelAt(output, 45, 80, 90), BLUE)).toBe(true)
    // Nothing paints the right half of an opaque format: the page's white.
    expect(near(await pixelAt(output, 15, 240, 90), {r: 255, g: 255, b: 255})).toBe(true)
  })

  it('mp4: a --variables value reaches the page', async () => {
    const output = join(scratch(), 'green.mp4')
    await renderFixture('blocks.html', {output, fps: 10}, {color: '#00ff00'}, pool)
    expect(near(await pixelAt(output, 3, 80, 90), {r: 0, g: 255, b: 0})).toBe(true)
  })

  it('mov: ProRes 4444 with alpha where nothing is painted', async () => {
    const output = join(scratch(), 'blocks.mov')
    await renderFixture('blocks.html', {output, format: 'mov', fps: 10}, undefined, pool)
    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({codec_name: 'prores', width: 320, height: 180, nb_read_frames: '20'})
    expect(stream.pix_fmt).toMatch(/^yuva444p/)
    expect(await pixelAt(output, 5, 240, 90)).toMatchObject({a: 0})
    const painted = await pixelAt(output, 5, 80, 90)
    expect(painted.a).toBe(255)
    expect(near(painted, RED)).toBe(true)
  })

  it('webm: VP9 with an alpha_mode side stream', async () => {
    const output = join(scratch(), 'blocks.webm')
    await renderFixture('blocks.html', {output, format: 'webm', fps: 10}, undefined, pool)
    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({codec_name: 'vp9', pix_fmt: 'yuv420p', width: 320, height: 180, nb_read_frames: '20'})
    expect(stream.tags?.ALPHA_MODE ?? stream.tags?.alpha_mode).toBe('1')
    expect((await pixelAt(output, 15, 240, 90, VP9_ALPHA)).a).toBe(0)
    const painted = await pixelAt(output, 15, 80, 90, VP9_ALPHA)
    expect(painted.a).toBeGreaterThan(240)
    expect(near(painted, BLUE)).toBe(true)
  })

  it('gif: capped at 30 fps with a warning, loop count kept', async () => {
    const output = join(scratch(), 'blocks.gif')
    const result = await renderFixture('blocks.html', {output, format: 'gif', fps: 60, gifLoop: 2}, undefined, pool)
    expect(result.events).toContainEqual(expect.objectContaining({type: 'warning', code: 'fps-capped'}))
    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({codec_name: 'gif', width: 320, height: 180, nb_read_frames: '60'})
    expect(near(await pixelAt(output, 45, 80, 90), BLUE, 40)).toBe(true)
    expect(gifLoopCount(await readFile(output))).toBe(2)
  })

  it('png-sequence: RGBA frames named frame_NNNNNN.png in the output directory', async () => {
    const output = join(scratch(), 'frames')
    await renderFixture('blocks.html', {output, format: 'png-sequence', fps: 10, workers: 2}, undefined, pool)
    const files = (await readdir(output)).sort()
    expect(files).toHaveLength(20)
    expect(files[0]).toBe('frame_000000.png')
    expect(files[19]).toBe('frame_000019.png')
    const first = join(output, 'frame_000005.png')
    expect(await pixelAt(first, 0, 80, 90)).toEqual({...RED, a: 255})
    expect((await pixelAt(first, 0, 240, 90)).a).toBe(0)
  })

  it('rational fps: 30000/1001 gives ceil(duration x fps) frames at that exact rate', async () => {
    const output = join(scratch(), 'ntsc.mp4')
    await renderFixture('blocks.html', {output, fps: '30000/1001'}, undefined, pool)
    const stream = await probeVideoStream(output)
    expect(stream.r_frame_rate).toBe('30000/1001')
    expect(stream.nb_read_frames).toBe('60')
  })

  it('sub-composition instances each see their own variable values', async () => {
    const output = join(scratch(), 'instances.mp4')
    await renderFixture('instances.html', {output, fps: 10}, undefined, pool)
    expect(near(await pixelAt(output, 5, 80, 90), RED)).toBe(true)
    expect(near(await pixelAt(output, 5, 240, 90), BLUE)).toBe(true)
  })
})
