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
export function assertWithinLimits(plan: Pick<RenderPlan, 'width' | 'height' | 'totalFrames' | 'fps'>, limits: RenderLimits): void {
  const durationSeconds = (plan.totalFrames * plan.fps.den) / plan.fps.num
  if (durationSeconds > limits.maxDurationSeconds) {
    throw new EngineError(
      'LIMIT_EXCEEDED',
      `data-duration: the composition is ${round(durationSeconds)} s of video; this server renders at most ${limits.maxDurationSeconds} s per request (engine serve --max-duration)`,
      {field: 'data-duration', value: round(durationSeconds), limit: limits.maxDurationSeconds},
    )
  }
  const pixels = plan.width * plan.height
  if (pixels > limits.maxPixels) {
    throw new EngineError(
      'LIMIT_EXCEEDED',
      `data-width x data-height: ${plan.width}x${plan.height} is ${pixels} pixels per frame; this server renders at most ${limits.maxPixels} (engine serve --max-pixels)`,
      {field: 'data-width x data-height', value: `${plan.width}x${plan.height}`, pixels, limit: limits.maxPixels},
    )
  }
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000
