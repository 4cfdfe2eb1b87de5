// The `engine:formats` hook: returns the formats this plugin adds. The engine passes its plugin
// API as `api` (the same module as `html-video-engine/plugin`), so this file needs no build step
// and no run-time dependency on the engine.

/** @typedef {import('html-video-engine/plugin-types').EngineHookOptions} EngineHookOptions */
/** @typedef {import('html-video-engine/plugin-types').VideoSegmentFormat} VideoSegmentFormat */

/**
 * @param {EngineHookOptions} options
 * @returns {Promise<VideoSegmentFormat[]>}
 */
export default async function formats({api}) {
  /** Whole ticks per frame, so the workers' segments join without drift. */
  const timescale = (plan) => ['-video_track_timescale', String(api.trackTimescale(plan.fps))]
  return [
    {
      name: 'mkv',
      description: 'H.264 (yuv420p, BT.709) in Matroska, from the engine-plugin-mkv example plugin',
      apiVersion: 1,
      alpha: false,
      audio: 'aac',
      evenDimensions: true,
      rateControl: true,
      gpu: false,
      worker: 'video-segment',
      extension: '.mkv',
      // Sent by engine serve as the Content-Type of the output.
      mimeType: 'video/x-matroska',
      // Each worker encodes an MP4 segment (exact timestamps); assembly copies them into Matroska.
      segmentExtension: '.mp4',
      requiredEncoders: () => ['libx264'],
      segmentArgs: ({plan}) => ({
        input: [],
        output: ['-vf', api.bt709Filter(plan.capture.imageFormat, 'yuv420p'), ...api.x264Args(plan.encode), ...api.BT709_TAGS, ...timescale(plan), '-f', 'mp4'],
      }),
      async assemble(context) {
        await context.ffmpeg([...(await context.copySegments()), '-f', 'matroska', context.outputPath])
      },
    },
  ]
}
