import {EngineError} from '../errors/engine-error.js'
import {fpsValue, type Fps} from './fps.js'
import type {CaptureImageFormat, RenderPlan} from './render-plan.js'

/**
 * What planning needs to know about a format: the capabilities every format plugin declares. The
 * plugin's encoding side (ffmpeg arguments, assembly) belongs to encode; the planner sees only this.
 */
export interface FormatCapabilities {
  /** The `--format` value. Lowercase letters, digits and dashes. */
  readonly name: string
  /** Alpha formats are captured as PNG over a transparent page background; others as JPEG. */
  readonly alpha: boolean
  /** Highest frame rate the format can play (GIF: 30); the planner clamps `--fps` to it. */
  readonly maxFps?: number
  /** Chroma subsampling that needs even width and height (H.264 yuv420p). */
  readonly evenDimensions: boolean
  /** Whether `--crf` / `--video-bitrate` change the result. */
  readonly rateControl: boolean
  /** Whether `--gpu` can pick a hardware encoder for this format. */
  readonly gpu: boolean
  /**
   * The codec of a subtitle track the format carries (`mov_text` for MP4 and QuickTime, `webvtt`
   * for WebM); without it `--captions-track` is refused for the format.
   */
  readonly subtitleCodec?: string
  /**
   * Seconds between keyframes the output needs when the render sets no `--keyframe-interval`, from
   * the render's encode settings: a stream cut into files at keyframes (HLS) gives its segment
   * length. Undefined keeps the default grid (see segmentFrames).
   */
  readonly keyframeInterval?: (encode: Readonly<RenderPlan['encode']>) => number | undefined
}

/** Image format the capture worker must produce for this format. */
export function captureImageFormat(format: FormatCapabilities): CaptureImageFormat {
  return format.alpha ? 'png' : 'jpeg'
}

/** The fps the planner should render at: the requested one, clamped to the format's cap (GIF 30). */
export function clampFpsToFormat(format: FormatCapabilities, fps: Fps): Fps {
  return format.maxFps !== undefined && fpsValue(fps) > format.maxFps ? {num: format.maxFps, den: 1} : fps
}

/**
 * Rejects sizes a format cannot encode. H.264 yuv420p halves chroma in both directions, so odd
 * sizes are refused here with the fix, rather than padded (which would change the output size).
 */
export function assertFormatAccepts(format: FormatCapabilities, size: {width: number; height: number}, scale = 1): void {
  if (!format.evenDimensions) return
  const odd = (['width', 'height'] as const).filter((side) => size[side] % 2 !== 0)
  if (odd.length === 0) return
  const suggestion = `${size.width + (size.width % 2)}x${size.height + (size.height % 2)}`
  if (scale !== 1) {
    throw new EngineError(
      'INVALID_FLAG',
      `--scale ${scale}: ${format.name} needs an even width and height, but the scaled output is ${size.width}x${size.height} (odd ${odd.join(' and ')}): pick a scale that gives even sides, or render a format without this limit (mov, webm, png-sequence)`,
      {format: format.name, width: size.width, height: size.height, scale},
    )
  }
  throw new EngineError(
    'COMPOSITION_INVALID',
    `${format.name} needs an even width and height, but the composition is ${size.width}x${size.height} (odd ${odd.join(' and ')}): ` +
      `set data-width/data-height to an even size such as ${suggestion}, or render a format without this limit (mov, webm, png-sequence)`,
    {format: format.name, width: size.width, height: size.height},
  )
}

export interface EncodeRequest {
  gpu?: boolean
  crf?: number
  videoBitrate?: string
}

/**
 * Refuses encoder options the format declares it does not use, instead of ignoring them (a GIF
 * has no crf) or failing later with another format's error (webm has no hardware encoder).
 */
export function assertFormatSupports(format: FormatCapabilities, request: EncodeRequest): void {
  if (request.gpu && !format.gpu) {
    throw new EngineError(
      'INVALID_FLAG',
      `--gpu: the ${format.name} format has no hardware encoder; drop --gpu, or use a format that supports it (such as mp4)`,
      {format: format.name, gpu: true},
    )
  }
  if (format.rateControl) return
  for (const [key, flag] of [['crf', '--crf'], ['videoBitrate', '--video-bitrate']] as const) {
    if (request[key] === undefined) continue
    throw new EngineError(
      'INVALID_FLAG',
      `${flag}: the ${format.name} format has no rate control, so ${flag} ${request[key]} would change nothing; drop ${flag} (use --quality instead)`,
      {format: format.name, [key]: request[key]},
    )
  }
}

