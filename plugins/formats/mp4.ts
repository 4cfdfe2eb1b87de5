import type {RenderPlan} from '../../src/lib/plan/render-plan.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {BT709_TAGS, bt709Filter} from '../../src/lib/encode/bt709.js'
import type {FfmpegArgs, SegmentArgsContext, VideoSegmentFormat} from '../../src/lib/encode/format-plugin.js'
import {trackTimescale} from '../../src/lib/encode/frame-timing.js'
import type {GpuEncoder} from '../../src/lib/encode/gpu/gpu-encoders.js'
import {hdrFilter, hdrTags, x265Args} from '../../src/lib/encode/hdr-encode.js'
import type {HdrTransfer} from '../../src/lib/media/hdr/hdr-sources.js'
import {QUALITY_PRESETS, bitrateArgs, rateControl, type EncodeSettings} from '../../src/lib/encode/rate-control.js'

/** libx264 with the spec's presets; `--crf` replaces the preset's crf, `--video-bitrate` switches to capped VBR. */
export function x264Args(encode: EncodeSettings): string[] {
  const rate = rateControl(encode)
  return [
    '-c:v', 'libx264',
    '-preset', QUALITY_PRESETS[encode.quality].x264Preset,
    ...(rate.mode === 'crf' ? ['-crf', String(rate.crf)] : bitrateArgs(rate.bitsPerSecond)),
    '-pix_fmt', 'yuv420p',
  ]
}

function timescaleArgs(plan: RenderPlan): string[] {
  return ['-video_track_timescale', String(trackTimescale(plan.fps))]
}

function gpuSegmentArgs(plan: RenderPlan, gpuEncoder: GpuEncoder | undefined): FfmpegArgs {
  if (!gpuEncoder) {
    throw new EngineError('INTERNAL', 'plan.encode.gpu is set but no GPU encoder was selected: call selectGpuEncoder() before opening segments')
  }
  const filter = [bt709Filter(plan.capture.imageFormat, 'yuv420p'), gpuEncoder.uploadFilter].filter(Boolean).join(',')
  return {
    input: gpuEncoder.inputArgs(),
    output: ['-vf', filter, ...gpuEncoder.videoArgs(plan.encode), ...BT709_TAGS, ...timescaleArgs(plan), '-f', 'mp4'],
  }
}

/** H.265 Main10 in BT.2020 PQ/HLG, from the same sRGB captures (see hdrFilter). */
function hdrSegmentArgs(plan: RenderPlan, transfer: HdrTransfer): FfmpegArgs {
  return {
    input: [],
    output: ['-vf', hdrFilter(plan.capture.imageFormat, transfer), ...x265Args(plan.encode, transfer), ...hdrTags(transfer), ...timescaleArgs(plan), '-f', 'mp4'],
  }
}

/**
 * H.264 in MP4, or H.265 10-bit when `plan.encode.hdr` is set. Segments are MP4 files whose
 * track timescale makes every frame a whole number of ticks; each is its own encode, so it starts
 * on an IDR frame and no B-frame refers across a seam.
 */
export const mp4Format: VideoSegmentFormat = {
  name: 'mp4',
  description: 'H.264 (yuv420p, BT.709) in MP4, fast start; with HDR, H.265 10-bit BT.2020 PQ or HLG',
  alpha: false,
  audio: 'aac',
  evenDimensions: true,
  rateControl: true,
  gpu: true,
  worker: 'video-segment',
  extension: '.mp4',
  segmentExtension: '.mp4',
  requiredEncoders: (encode) => (encode.gpu ? [] : encode.hdr ? ['libx265'] : ['libx264']),
  segmentArgs({plan, gpuEncoder}: SegmentArgsContext): FfmpegArgs {
    if (plan.encode.hdr) return hdrSegmentArgs(plan, plan.encode.hdr)
    if (plan.encode.gpu) return gpuSegmentArgs(plan, gpuEncoder)
    return {
      input: [],
      output: ['-vf', bt709Filter(plan.capture.imageFormat, 'yuv420p'), ...x264Args(plan.encode), ...BT709_TAGS, ...timescaleArgs(plan), '-f', 'mp4'],
    }
  },
  async assemble(context) {
    await context.ffmpeg([
      ...(await context.copySegments()),
      ...timescaleArgs(context.plan),
      '-movflags', '+faststart',
      '-f', 'mp4', context.outputPath,
    ])
  },
}
