import {EngineError} from '../errors/engine-error.js'
import type {RenderPlan} from './render-plan.js'

/** What one render may cost, set by whoever runs the engine for others (`engine serve`). */
export interface RenderLimits {
  /** Seconds of video. */
  maxDurationSeconds: number
  /** Pixels per frame (width x height). */
  maxPixels: number
}

export const DEFAULT_RENDER_LIMITS: RenderLimits = {maxDurationSeconds: 600, maxPixels: 3840 * 2160}

/**
 * Throws LIMIT_EXCEEDED, naming the composition attribute, its value and the limit, when a planned
 * render is longer or larger than allowed. Runs after compile and plan, before any browser starts.
 */
export function assertWithinLimits(plan: Pick<RenderPlan, 'width' | 'height' | 'totalFrames' | 'fps' | 'scale'>, limits: RenderLimits): void {
  const durationSeconds = (plan.totalFrames * plan.fps.den) / plan.fps.num
  if (durationSeconds > limits.maxDurationSeconds) {
    throw new EngineError(
      'LIMIT_EXCEEDED',
      `data-duration: the composition is ${round(durationSeconds)} s of video; this server renders at most ${limits.maxDurationSeconds} s per request (engine serve --max-duration)`,
      {field: 'data-duration', value: round(durationSeconds), limit: limits.maxDurationSeconds},
    )
  }
  assertPixelsWithinLimits(plan, limits)
}

/**
 * Throws LIMIT_EXCEEDED when the frames drawn (the composition's size times `scale`) have more
 * pixels than allowed: what costs memory and time is the drawn frame, not the CSS size.
 */
export function assertPixelsWithinLimits(plan: Pick<RenderPlan, 'width' | 'height' | 'scale'>, limits: Pick<RenderLimits, 'maxPixels'>): void {
  const scale = plan.scale ?? 1
  const width = Math.round(plan.width * scale)
  const height = Math.round(plan.height * scale)
  const pixels = width * height
  if (pixels <= limits.maxPixels) return
  const drawn = scale === 1 ? `${width}x${height}` : `${plan.width}x${plan.height} at scale ${scale} is ${width}x${height}, which`
  throw new EngineError(
    'LIMIT_EXCEEDED',
    `data-width x data-height: ${drawn} is ${pixels} pixels per frame; this server renders at most ${limits.maxPixels} (engine serve --max-pixels)`,
    {field: scale === 1 ? 'data-width x data-height' : 'scale', value: `${width}x${height}`, pixels, limit: limits.maxPixels, ...(scale !== 1 && {scale})},
  )
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000
