import {BT709_TAGS, bt709Filter, trackTimescale, type VideoSegmentFormat} from '../../src/plugin/index.js'

const PIX_FMT = 'yuva444p10le'

/** ProRes 4444 with alpha in QuickTime. Every ProRes frame is a keyframe, so segments join anywhere. */
export const movFormat: VideoSegmentFormat = {
  name: 'mov',
  mimeType: 'video/quicktime',
  description: 'ProRes 4444 with alpha in QuickTime (large files; accepted by major editors)',
  alpha: true,
  audio: 'aac',
  subtitleCodec: 'mov_text',
  evenDimensions: false,
  rateControl: false,
  gpu: false,
  worker: 'video-segment',
  extension: '.mov',
  segmentExtension: '.mov',
  requiredEncoders: () => ['prores_ks'],
  segmentArgs: ({plan}) => ({
    input: [],
    output: [
      '-vf', bt709Filter(plan.capture.imageFormat, PIX_FMT),
      '-c:v', 'prores_ks', '-profile:v', '4444', '-pix_fmt', PIX_FMT, '-vendor', 'apl0',
      ...BT709_TAGS,
      '-video_track_timescale', String(trackTimescale(plan.fps)),
      '-f', 'mov',
    ],
  }),
  async assemble(context) {
    await context.ffmpeg([
      ...(await context.copySegments()),
      '-video_track_timescale', String(trackTimescale(context.plan.fps)),
      '-f', 'mov', context.outputPath,
    ])
  },
}
