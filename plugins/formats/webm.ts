import {BT709_TAGS, bt709Filter, rateControl, type EncodeSettings, type Quality, type VideoSegmentFormat} from '../../src/plugin/index.js'

/**
 * libvpx speed per quality, measured at 1080p with alpha on 2 cores: realtime/8 ~21 frames/s,
 * good/4 ~13, good/2 ~11 (files 1.4x / 1.0x / 0.99x the size of good/4).
 */
const SPEED: Readonly<Record<Quality, string[]>> = {
  draft: ['-deadline', 'realtime', '-cpu-used', '8'],
  standard: ['-deadline', 'good', '-cpu-used', '4'],
  high: ['-deadline', 'good', '-cpu-used', '2'],
}

/** VP9's crf runs 0-63 where x264's runs 0-51: scale so that --crf keeps its meaning (18 -> 22, 28 -> 35). */
export function vp9Crf(x264Crf: number): number {
  return Math.round((x264Crf * 63) / 51)
}

export function vp9Args(encode: EncodeSettings): string[] {
  const rate = rateControl(encode)
  return [
    '-c:v', 'libvpx-vp9', '-pix_fmt', 'yuva420p',
    // Alternate reference frames are incompatible with the alpha side channel.
    '-auto-alt-ref', '0', '-row-mt', '1',
    ...SPEED[encode.quality],
    ...(rate.mode === 'crf' ? ['-crf', String(vp9Crf(rate.crf)), '-b:v', '0'] : ['-b:v', String(rate.bitsPerSecond)]),
  ]
}

const ALPHA_TAG = ['-metadata:s:v:0', 'alpha_mode=1']

/**
 * VP9 with alpha in WebM. The alpha plane travels as a second VP9 stream in Matroska block
 * additions, which stream copy preserves; probes report `yuv420p` plus the `alpha_mode` tag.
 */
export const webmFormat: VideoSegmentFormat = {
  name: 'webm',
  mimeType: 'video/webm',
  description: 'VP9 with alpha in WebM (Chromium-based browsers decode the alpha)',
  alpha: true,
  audio: 'opus',
  subtitleCodec: 'webvtt',
  evenDimensions: false,
  rateControl: true,
  gpu: false,
  worker: 'video-segment',
  extension: '.webm',
  segmentExtension: '.webm',
  requiredEncoders: () => ['libvpx-vp9'],
  segmentArgs: ({plan}) => ({
    input: [],
    output: ['-vf', bt709Filter(plan.capture.imageFormat, 'yuva420p'), ...vp9Args(plan.encode), ...BT709_TAGS, ...ALPHA_TAG, '-f', 'webm'],
  }),
  async assemble(context) {
    await context.ffmpeg([...(await context.copySegments()), ...ALPHA_TAG, '-f', 'webm', context.outputPath])
  },
}
