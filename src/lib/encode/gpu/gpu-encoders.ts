import {EngineError} from '../../errors/engine-error.js'
import type {Quality} from '../../plan/render-plan.js'
import {bitrateArgs, rateControl, type EncodeSettings} from '../rate-control.js'

export type GpuEncoderName = 'videotoolbox' | 'nvenc' | 'amf' | 'vaapi' | 'qsv'

/** One hardware H.264 backend and how to drive it from the plan's encode settings. */
export interface GpuEncoder {
  readonly name: GpuEncoderName
  readonly label: string
  /** The `ffmpeg -encoders` name. */
  readonly encoder: string
  readonly platforms: readonly NodeJS.Platform[]
  /** Arguments that must come before the first input (device selection). */
  inputArgs(): string[]
  /** Filter appended after the colour conversion (upload to the device). */
  readonly uploadFilter?: string
  /** `-c:v ...` and rate control. */
  videoArgs(encode: EncodeSettings): string[]
}

/** Quality value q on the crf scale: --crf, else the preset's (28 / 18 / 15). */
function crfOrBitrate(encode: EncodeSettings, constantQuality: (q: number) => string[]): string[] {
  const rate = rateControl(encode)
  return rate.mode === 'bitrate' ? bitrateArgs(rate.bitsPerSecond) : constantQuality(rate.crf)
}

const pick = <T>(quality: Quality, values: Record<Quality, T>): T => values[quality]

export const GPU_ENCODERS: readonly GpuEncoder[] = [
  {
    name: 'videotoolbox',
    label: 'Apple VideoToolbox',
    encoder: 'h264_videotoolbox',
    platforms: ['darwin'],
    inputArgs: () => [],
    videoArgs: (encode) => [
      '-c:v', 'h264_videotoolbox', '-allow_sw', '1',
      ...crfOrBitrate(encode, (q) => ['-q:v', String(Math.max(1, Math.min(100, 100 - 2 * q)))]),
    ],
  },
  {
    name: 'nvenc',
    label: 'NVIDIA NVENC',
    encoder: 'h264_nvenc',
    platforms: ['linux', 'win32'],
    inputArgs: () => [],
    videoArgs: (encode) => [
      '-c:v', 'h264_nvenc', '-preset', pick(encode.quality, {draft: 'p1', standard: 'p4', high: 'p5'}), '-bf', '0',
      // -b:v 0 lets -cq alone decide the size instead of NVENC's default 2 Mb/s target.
      ...crfOrBitrate(encode, (q) => ['-rc', 'vbr', '-cq', String(q), '-b:v', '0']),
    ],
  },
  {
    name: 'amf',
    label: 'AMD AMF',
    encoder: 'h264_amf',
    platforms: ['win32'],
    inputArgs: () => [],
    videoArgs: (encode) => [
      '-c:v', 'h264_amf', '-bf', '0',
      ...crfOrBitrate(encode, (q) => ['-rc', 'cqp', '-qp_i', String(q), '-qp_p', String(q)]),
    ],
  },
  {
    name: 'vaapi',
    label: 'VAAPI',
    encoder: 'h264_vaapi',
    platforms: ['linux'],
    inputArgs: () => ['-vaapi_device', '/dev/dri/renderD128'],
    uploadFilter: 'format=nv12,hwupload',
    videoArgs: (encode) => ['-c:v', 'h264_vaapi', ...crfOrBitrate(encode, (q) => ['-qp', String(q)])],
  },
  {
    name: 'qsv',
    label: 'Intel Quick Sync',
    encoder: 'h264_qsv',
    platforms: ['linux', 'win32'],
    inputArgs: () => [],
    videoArgs: (encode) => [
      '-c:v', 'h264_qsv', '-preset', pick(encode.quality, {draft: 'veryfast', standard: 'medium', high: 'slow'}), '-bf', '0',
      ...crfOrBitrate(encode, (q) => ['-global_quality', String(q)]),
    ],
  },
]

/** Backends worth probing on `platform`, in the order they are tried. */
export function gpuEncodersFor(platform: NodeJS.Platform): GpuEncoder[] {
  return GPU_ENCODERS.filter((encoder) => encoder.platforms.includes(platform))
}

export function gpuEncoderByName(name: GpuEncoderName): GpuEncoder {
  const encoder = GPU_ENCODERS.find((candidate) => candidate.name === name)
  if (!encoder) throw new EngineError('INTERNAL', `unknown GPU encoder "${name}"; known: ${GPU_ENCODERS.map((e) => e.name).join(', ')}`)
  return encoder
}
