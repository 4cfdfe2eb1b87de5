import {stat} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {assembleOutput} from '../../src/lib/encode/assemble-output.js'
import {vp9Args} from '../../plugins/formats/webm.js'
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

/** Frames whose left half is fully transparent and right half opaque. */
async function alphaAt(file: string, frame: number, decoderArgs: string[] = []): Promise<{left: number; right: number}> {
  const alpha = await decodeFrame(file, frame, 'alphaextract,format=gray', decoderArgs)
  const row = 90 * WIDTH
  return {left: alpha[row + 40], right: alpha[row + 280]}
}

describe('alpha formats from parallel segments', () => {
  const scratch = useScratchDir()
  let dir: string
  let frames: Buffer[]
  beforeAll(async () => {
    dir = scratch()
    frames = await makeFrames({count: 40, imageFormat: 'png', alpha: true})
  })

  it('mov: ProRes 4444 with alpha, every frame once, at 30000/1001', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mov', fps: {num: 30000, den: 1001}, totalFrames: 40})
    const segments = await encodeSegments(plan, frames, [14, 13, 13], join(dir, 'work-mov'), info)
    const output = join(dir, 'out.mov')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})

    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({
      codec_name: 'prores',
      profile: '4444',
      width: WIDTH,
      height: HEIGHT,
      r_frame_rate: '30000/1001',
      avg_frame_rate: '30000/1001',
      nb_read_frames: '40',
    })
    expect(stream.pix_fmt).toMatch(/^yuva444p1[02]le$/)
    const packets = await probePackets(output)
    expect(packets.map((packet) => packet.pts)).toEqual(Array.from({length: 40}, (_, i) => i * packets[0].duration))
    expect(await alphaAt(output, 20)).toEqual({left: 0, right: 255})
    expect(new Set(await decodedFrameHashes(output)).size).toBe(40)
  })

  it('webm: VP9 reports yuv420p with the alpha_mode tag, and the alpha decodes with libvpx', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'webm', fps: {num: 60, den: 1}, totalFrames: 40, encode: {quality: 'draft'}})
    const lengths = [5, 3, 7, 1, 6, 4, 8, 6]
    const segments = await encodeSegments(plan, frames, lengths, join(dir, 'work-webm'), info)
    const output = join(dir, 'out.webm')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})

    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({codec_name: 'vp9', pix_fmt: 'yuv420p', width: WIDTH, height: HEIGHT, r_frame_rate: '60/1', nb_read_frames: '40'})
    expect(Object.entries(stream.tags ?? {}).find(([key]) => key.toLowerCase() === 'alpha_mode')?.[1]).toBe('1')
    // Matroska keeps milliseconds: frame i at round(i * 1000 / 60) ms, exactly as one encode writes it.
    const packets = await probePackets(output)
    expect(packets.map((packet) => packet.pts)).toEqual(Array.from({length: 40}, (_, i) => Math.round((i * 1000) / 60)))
    const libvpx = ['-c:v', 'libvpx-vp9']
    for (const frame of [0, 5, 20, 39]) expect(await alphaAt(output, frame, libvpx)).toEqual({left: 0, right: 255})
  })

  it('webm: maps --quality to libvpx speed and --crf / --video-bitrate onto VP9 rate control', () => {
    const args = (encode: {quality: 'draft' | 'standard' | 'high'; crf?: number; videoBitrate?: string}) => vp9Args({gifLoop: 0, gpu: false, ...encode}).join(' ')
    expect(args({quality: 'draft'})).toContain('-deadline realtime -cpu-used 8 -crf 35 -b:v 0')
    expect(args({quality: 'standard'})).toContain('-deadline good -cpu-used 4 -crf 22 -b:v 0')
    expect(args({quality: 'high'})).toContain('-deadline good -cpu-used 2 -crf 19 -b:v 0')
    expect(args({quality: 'standard', crf: 51})).toContain('-crf 63 -b:v 0')
    expect(args({quality: 'standard', videoBitrate: '2500k'})).toMatch(/-b:v 2500000$/)
  })

  it('webm: --crf and --quality reach libvpx (a higher crf makes a smaller file)', async () => {
    const info = await ffmpeg()
    const sizeFor = async (name: string, encode: {quality: 'draft' | 'standard'; crf?: number}) => {
      const plan = testPlan({format: 'webm', totalFrames: 10, encode})
      const segments = await encodeSegments(plan, frames, [10], join(dir, `work-${name}`), info)
      const output = join(dir, `${name}.webm`)
      await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})
      return (await stat(output)).size
    }
    expect(await sizeFor('crf10', {quality: 'draft', crf: 10})).toBeGreaterThan(await sizeFor('crf45', {quality: 'draft', crf: 45}))
  })
})
