import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {assembleOutput} from '../../src/lib/encode/assemble-output.js'
import type {RenderPlan} from '../../src/lib/plan/render-plan.js'
import {
  HEIGHT,
  WIDTH,
  decodeFrame,
  decodedFrameHashes,
  encodeSegments,
  ffmpeg,
  makeFrames,
  probePackets,
  probeVideoStream,
  useScratchDir,
  testPlan,
} from './support/encode-fixtures.js'

describe('mp4 (H.264) from parallel segments', () => {
  const scratch = useScratchDir()
  let dir: string
  let frames: Buffer[]
  beforeAll(async () => {
    dir = scratch()
    frames = await makeFrames({count: 60, imageFormat: 'jpeg'})
  })

  it('joins three workers into one seamless H.264 file at 30000/1001 with every frame once', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mp4', fps: {num: 30000, den: 1001}, totalFrames: 60, encode: {quality: 'standard'}})
    const segments = await encodeSegments(plan, frames, [23, 20, 17], join(dir, 'work-ntsc'), info)
    const output = join(dir, 'ntsc.mp4')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})

    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({
      codec_name: 'h264',
      pix_fmt: 'yuv420p',
      width: WIDTH,
      height: HEIGHT,
      r_frame_rate: '30000/1001',
      avg_frame_rate: '30000/1001',
      nb_read_frames: '60',
      color_space: 'bt709',
      color_transfer: 'bt709',
      color_primaries: 'bt709',
      color_range: 'tv',
    })

    // Presentation times are exactly frame i at i * 1001/30000 s: no gap, duplicate or drift at seams.
    const packets = await probePackets(output)
    const frameTicks = packets[1].duration
    const pts = packets.map((packet) => packet.pts).sort((a, b) => a - b)
    expect(pts).toEqual(Array.from({length: 60}, (_, i) => i * frameTicks))
    const keyframes = packets.filter((packet) => packet.flags.startsWith('K')).map((packet) => packet.pts / frameTicks)
    expect(keyframes).toEqual(expect.arrayContaining([0, 23, 43]))
    const dts = packets.map((packet) => packet.dts)
    expect(dts.every((value, i) => i === 0 || value > dts[i - 1])).toBe(true)

    // Fast start: the index (moov) precedes the media data.
    const bytes = await readFile(output)
    expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'))
  })

  it('puts keyframes at segment starts only, even where the picture cuts inside a segment (no scene-change keyframes)', async () => {
    const info = await ffmpeg()
    // x264's medium preset (standard quality) cuts a GOP at a scene change unless told not to.
    const plan = testPlan({format: 'mp4', totalFrames: 60, segmentFrames: 30, encode: {quality: 'standard'}})
    // Cuts at frames 20 and 50: past the least keyframe distance x264 keeps (16 for a GOP of 30).
    const bars = await makeFrames({count: 10, imageFormat: 'jpeg', source: `smptehdbars=s=${WIDTH}x${HEIGHT}:r=30`})
    const cuts = [...frames.slice(0, 20), ...bars, ...frames.slice(30, 50), ...bars]
    const segments = await encodeSegments(plan, cuts, [30, 30], join(dir, 'work-cuts'), info)
    const output = join(dir, 'cuts.mp4')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})
    const packets = await probePackets(output)
    const frameTicks = packets[1].duration
    const keyframes = packets.filter((packet) => packet.flags.startsWith('K')).map((packet) => packet.pts / frameTicks)
    expect(keyframes.sort((a, b) => a - b)).toEqual([0, 30])
  })

  it('stays frame-exact with 24 workers at 240 fps, one-frame segments included', async () => {
    const info = await ffmpeg()
    const lengths = Array.from({length: 24}, (_, i) => (i % 4) + 1)
    const total = lengths.reduce((sum, length) => sum + length, 0)
    const plan = testPlan({format: 'mp4', fps: {num: 240, den: 1}, totalFrames: total, encode: {quality: 'draft'}})
    const segments = await encodeSegments(plan, frames, lengths, join(dir, 'work-240'), info)
    const output = join(dir, '240.mp4')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})

    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({r_frame_rate: '240/1', avg_frame_rate: '240/1', nb_read_frames: String(total)})
    const packets = await probePackets(output)
    const frameTicks = packets[0].duration
    expect(packets.map((packet) => packet.pts).sort((a, b) => a - b)).toEqual(Array.from({length: total}, (_, i) => i * frameTicks))
  })

  it('decodes to exactly the frames of a single-worker encode (lossless crf 0)', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mp4', totalFrames: 60, encode: {quality: 'draft', crf: 0}})
    const single = await encodeSegments(plan, frames, [60], join(dir, 'work-single'), info)
    const split = await encodeSegments(plan, frames, [15, 30, 15], join(dir, 'work-split'), info)
    await assembleOutput({plan, segments: single, outputPath: join(dir, 'single.mp4'), ffmpeg: info})
    await assembleOutput({plan, segments: split, outputPath: join(dir, 'split.mp4'), ffmpeg: info})

    const expected = await decodedFrameHashes(join(dir, 'single.mp4'))
    expect(expected).toHaveLength(60)
    expect(new Set(expected).size).toBe(60)
    expect(await decodedFrameHashes(join(dir, 'split.mp4'))).toEqual(expected)
  })

  it('keeps captured colours: JPEG BT.601 full range becomes tagged BT.709 limited range', async () => {
    const info = await ffmpeg()
    const red = await makeFrames({count: 2, imageFormat: 'jpeg', source: `color=c=0xff0000:s=${WIDTH}x${HEIGHT}`})
    const plan = testPlan({format: 'mp4', totalFrames: 2, encode: {quality: 'high', crf: 0}})
    const segments = await encodeSegments(plan, red, [2], join(dir, 'work-red'), info)
    const output = join(dir, 'red.mp4')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})
    const pixel = await decodeFrame(output, 0, 'crop=2:2:100:100,scale=in_color_matrix=bt709:in_range=tv,format=rgb24')
    expect(pixel[0]).toBeGreaterThanOrEqual(250)
    expect(pixel[1]).toBeLessThanOrEqual(4)
    expect(pixel[2]).toBeLessThanOrEqual(4)
  })

  it('encodes with the preset of --quality, the --crf override and --video-bitrate (read back from the x264 settings)', async () => {
    const info = await ffmpeg()
    const settingsOf = async (name: string, encode: Partial<RenderPlan['encode']>) => {
      const plan = testPlan({format: 'mp4', totalFrames: 10, encode})
      const [segment] = await encodeSegments(plan, frames, [10], join(dir, `work-${name}`), info)
      const bytes = await readFile(segment.path)
      const start = bytes.indexOf('x264 - core')
      return bytes.subarray(start, bytes.indexOf(0, start)).toString('latin1')
    }
    const draft = await settingsOf('draft', {quality: 'draft'})
    expect(draft).toContain('crf=28.0')
    expect(draft).toContain('subme=0') // ultrafast
    const standard = await settingsOf('standard', {quality: 'standard'})
    expect(standard).toContain('crf=18.0')
    expect(standard).toContain('subme=7') // medium
    const high = await settingsOf('high', {quality: 'high'})
    expect(high).toContain('crf=15.0')
    expect(high).toContain('subme=8') // slow
    const crf = await settingsOf('crf', {quality: 'standard', crf: 23})
    expect(crf).toContain('crf=23.0')
    const bitrate = await settingsOf('bitrate', {quality: 'standard', videoBitrate: '2M'})
    expect(bitrate).toMatch(/ bitrate=2000 .*vbv_maxrate=2000 vbv_bufsize=4000/)
    expect(bitrate).not.toContain('crf=')
  })
})
