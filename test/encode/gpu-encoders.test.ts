import {describe, expect, it} from 'vitest'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import type {VideoSegmentFormat} from '../../src/lib/encode/format-plugin.js'
import {gpuEncoderByName, gpuEncodersFor, registerGpuEncoder} from '../../src/lib/encode/gpu/gpu-encoders.js'
import {x264Args, type GpuEncoderPlugin} from '../../src/plugin/index.js'
import {probeGpuEncoders, selectGpuEncoder} from '../../src/lib/encode/gpu/select-gpu-encoder.js'
import {testPlan} from './support/encode-fixtures.js'

const standard = {quality: 'standard', gifLoop: 0, gpu: true} as const

describe('GPU encoders (--gpu)', () => {
  it('maps quality, --crf and --video-bitrate onto each backend', () => {
    expect(gpuEncoderByName('nvenc').videoArgs(standard)).toEqual(['-c:v', 'h264_nvenc', '-preset', 'p4', '-bf', '0', '-rc', 'vbr', '-cq', '18', '-b:v', '0'])
    expect(gpuEncoderByName('nvenc').videoArgs({...standard, quality: 'draft'})).toContain('p1')
    expect(gpuEncoderByName('videotoolbox').videoArgs({...standard, quality: 'high'})).toEqual(['-c:v', 'h264_videotoolbox', '-allow_sw', '1', '-q:v', '70'])
    expect(gpuEncoderByName('videotoolbox').videoArgs({...standard, quality: 'draft'})).toContain('44')
    expect(gpuEncoderByName('amf').videoArgs({...standard, crf: 23})).toEqual(['-c:v', 'h264_amf', '-bf', '0', '-rc', 'cqp', '-qp_i', '23', '-qp_p', '23'])
    expect(gpuEncoderByName('qsv').videoArgs({...standard, quality: 'high'})).toEqual(['-c:v', 'h264_qsv', '-preset', 'slow', '-bf', '0', '-global_quality', '15'])
    expect(gpuEncoderByName('vaapi').videoArgs(standard)).toEqual(['-c:v', 'h264_vaapi', '-qp', '18'])
    expect(gpuEncoderByName('vaapi').videoArgs({...standard, videoBitrate: '5M'})).toEqual([
      '-c:v', 'h264_vaapi', '-b:v', '5000000', '-maxrate', '5000000', '-bufsize', '10000000',
    ])
  })

  it('puts the VAAPI device before the input and uploads frames after the colour conversion', () => {
    const mp4 = getFormat('mp4') as VideoSegmentFormat
    const plan = testPlan({format: 'mp4', encode: {gpu: true}})
    const args = mp4.segmentArgs({plan, range: {start: 0, end: 10}, gpuEncoder: gpuEncoderByName('vaapi')})
    expect(args.input).toEqual(['-vaapi_device', '/dev/dri/renderD128'])
    const filter = args.output[args.output.indexOf('-vf') + 1]
    expect(filter).toMatch(/^colorspace=.*,format=nv12,hwupload$/)
    expect(() => mp4.segmentArgs({plan, range: {start: 0, end: 10}})).toThrow(/selectGpuEncoder/)
  })

  it('tries the backends of each platform in order', () => {
    expect(gpuEncodersFor('darwin').map((encoder) => encoder.name)).toEqual(['videotoolbox'])
    expect(gpuEncodersFor('linux').map((encoder) => encoder.name)).toEqual(['nvenc', 'vaapi', 'qsv'])
    expect(gpuEncodersFor('win32').map((encoder) => encoder.name)).toEqual(['nvenc', 'amf', 'qsv'])
  })

  it('reports every backend unusable on this machine (no GPU) and says what was tried', async () => {
    const results = await probeGpuEncoders({ffmpegPath: '/usr/bin/ffmpeg', platform: 'linux'})
    expect(results.map((result) => [result.encoder.encoder, result.usable])).toEqual([
      ['h264_nvenc', false],
      ['h264_vaapi', false],
      ['h264_qsv', false],
    ])
    for (const result of results) expect(result.reason).toBeTruthy()

    const error = await selectGpuEncoder({ffmpegPath: '/usr/bin/ffmpeg', platform: 'linux'}).catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'GPU_ENCODER_UNAVAILABLE', message: expect.stringContaining('h264_nvenc')})
    expect((error as Error).message).toContain('without --gpu')
  })

  it('says when an encoder is not even built into ffmpeg', async () => {
    const [videotoolbox] = await probeGpuEncoders({ffmpegPath: '/usr/bin/ffmpeg', platform: 'darwin'})
    expect(videotoolbox).toMatchObject({usable: false, reason: 'not built into this ffmpeg'})
  })

  it('takes encoders from plugins: probed like the built-ins, a taken name refused naming both plugins', async () => {
    // A software encoder stands in for a hardware one on a platform no built-in claims, so the probe really runs.
    const plugin: GpuEncoderPlugin = {
      name: 'soft-h264',
      label: 'libx264 posing as hardware',
      encoder: 'libx264',
      platforms: ['aix'],
      inputArgs: () => [],
      videoArgs: (encode) => x264Args(encode),
    }
    registerGpuEncoder(plugin, 'plugin engine-soft-gpu')
    expect(gpuEncodersFor('aix')).toEqual([plugin])
    expect(await selectGpuEncoder({ffmpegPath: '/usr/bin/ffmpeg', platform: 'aix'})).toEqual(plugin)
    expect(() => registerGpuEncoder({...plugin}, 'plugin engine-other')).toThrow(
      'GPU encoder "soft-h264" from plugin engine-other is refused: plugin engine-soft-gpu already registers one with that name',
    )
    expect(() => registerGpuEncoder({...plugin, name: 'Bad Name'}, 'plugin engine-other')).toThrow(/GPU encoder "Bad Name" from plugin engine-other is invalid: name must be lowercase/)
  })
})
