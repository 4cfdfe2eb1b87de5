import {
  BT709_TAGS,
  EngineError,
  bt709Filter,
  hdrFilter,
  hdrTags,
  trackTimescale,
  x264Args,
  x265Args,
  type FfmpegArgs,
  type GpuEncoderPlugin,
  type HdrTransfer,
  type RenderPlan,
  type SegmentArgsContext,
  type VideoSegmentFormat,
} from '../../src/plugin/index.js'

function timescaleArgs(plan: RenderPlan): string[] {
  return ['-video_track_timescale', String(trackTimescale(plan.fps))]
}

function gpuSegmentArgs(plan: RenderPlan, gpuEncoder: GpuEncoderPlugin | undefined): FfmpegArgs {
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
  mimeType: 'video/mp4',
  description: 'H.264 (yuv420p, BT.709) in MP4, fast start; with HDR, H.265 10-bit BT.2020 PQ or HLG',
  alpha: false,
  audio: 'aac',
  subtitleCodec: 'mov_text',
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
