import {crfOrBitrateArgs, type GpuEncoderPlugin, type Quality} from '../../src/plugin/index.js'

const pick = <T>(quality: Quality, values: Record<Quality, T>): T => values[quality]

/** The built-in hardware H.264 backends, tried in this order (see selectGpuEncoder). */
export const BUILTIN_GPU_ENCODERS: readonly GpuEncoderPlugin[] = [
  {
    name: 'videotoolbox',
    label: 'Apple VideoToolbox',
    encoder: 'h264_videotoolbox',
    platforms: ['darwin'],
    inputArgs: () => [],
    videoArgs: (encode) => [
      '-c:v', 'h264_videotoolbox', '-allow_sw', '1',
      ...crfOrBitrateArgs(encode, (q) => ['-q:v', String(Math.max(1, Math.min(100, 100 - 2 * q)))]),
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
      ...crfOrBitrateArgs(encode, (q) => ['-rc', 'vbr', '-cq', String(q), '-b:v', '0']),
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
      ...crfOrBitrateArgs(encode, (q) => ['-rc', 'cqp', '-qp_i', String(q), '-qp_p', String(q)]),
    ],
  },
  {
    name: 'vaapi',
    label: 'VAAPI',
    encoder: 'h264_vaapi',
    platforms: ['linux'],
    inputArgs: () => ['-vaapi_device', '/dev/dri/renderD128'],
    uploadFilter: 'format=nv12,hwupload',
    videoArgs: (encode) => ['-c:v', 'h264_vaapi', ...crfOrBitrateArgs(encode, (q) => ['-qp', String(q)])],
  },
  {
    name: 'qsv',
    label: 'Intel Quick Sync',
    encoder: 'h264_qsv',
    platforms: ['linux', 'win32'],
    inputArgs: () => [],
    videoArgs: (encode) => [
      '-c:v', 'h264_qsv', '-preset', pick(encode.quality, {draft: 'veryfast', standard: 'medium', high: 'slow'}), '-bf', '0',
      ...crfOrBitrateArgs(encode, (q) => ['-global_quality', String(q)]),
    ],
  },
]
