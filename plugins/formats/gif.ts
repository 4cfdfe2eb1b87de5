import {join} from 'node:path'
import {EngineError, ffmpegRate, formatFps, fpsValue, type AssemblyContext, type ImageStreamFormat} from '../../src/plugin/index.js'

export const GIF_MAX_FPS = 30

/**
 * Animated GIF, two passes over all frames: one palette for the whole animation (built from the
 * pixels that change), then Sierra dithering. A palette cannot be split across workers, so workers
 * only keep their captured JPEGs and the encode happens once, at assembly.
 */
export const gifFormat: ImageStreamFormat = {
  name: 'gif',
  mimeType: 'image/gif',
  description: `animated GIF, two-pass palette with Sierra dithering, at most ${GIF_MAX_FPS} frames/s`,
  alpha: false,
  audio: 'none',
  maxFps: GIF_MAX_FPS,
  evenDimensions: false,
  rateControl: false,
  gpu: false,
  worker: 'image-stream',
  extension: '.gif',
  requiredEncoders: () => ['gif', 'png'],
  async assemble(context: AssemblyContext) {
    const {plan} = context
    if (fpsValue(plan.fps) > GIF_MAX_FPS) {
      throw new EngineError('INVALID_FLAG', `--fps: ${formatFps(plan.fps)} is above the GIF limit of ${GIF_MAX_FPS} frames/s; use --fps ${GIF_MAX_FPS} or lower`, {
        fps: formatFps(plan.fps),
      })
    }
    const input = ['-f', 'image2pipe', '-c:v', plan.capture.imageFormat === 'png' ? 'png' : 'mjpeg', '-framerate', ffmpegRate(plan.fps), '-i', 'pipe:0']
    const palette = join(context.scratchDir, 'palette.png')
    const stdinFiles = context.segments.map((segment) => segment.path)
    await context.ffmpeg([...input, '-vf', 'palettegen=stats_mode=diff', '-update', '1', '-f', 'image2', palette], {stdinFiles})
    await context.ffmpeg(
      [
        ...input, '-i', palette,
        '-lavfi', '[0:v][1:v]paletteuse=dither=sierra2_4a:diff_mode=rectangle',
        '-loop', String(plan.encode.gifLoop),
        '-f', 'gif', context.outputPath,
      ],
      {stdinFiles},
    )
  },
}
