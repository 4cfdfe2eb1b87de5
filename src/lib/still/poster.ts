import {extname} from 'node:path'
import {outputExtension, type FormatPlugin} from '../encode/format-plugin.js'
import {EngineError} from '../errors/engine-error.js'
import {describeFrameRange, renderedFrames} from '../plan/frame-range.js'
import {frameTime} from '../plan/fps.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {stillExtension, stillFrame, type StillFormat} from './still-settings.js'

export const DEFAULT_POSTER_FORMAT: StillFormat = 'jpeg'

/** `<output without extension>.poster.<ext>`; beside the frame directory for png-sequence. */
export function posterPath(output: string, format: FormatPlugin, posterFormat: StillFormat): string {
  const stem = outputExtension(format) === undefined ? output.replace(/[\\/]+$/, '') : output.slice(0, output.length - extname(output).length)
  return `${stem}.poster${stillExtension(posterFormat)}`
}

/**
 * The frame on screen at `timeSeconds` (as `engine still --time`; composition time, also with
 * `--frames`); it must be one the render captures, since the poster comes from that capture.
 */
export function posterFrame(timeSeconds: number, plan: Pick<RenderPlan, 'fps' | 'totalFrames' | 'frameRange'>): number {
  const frame = stillFrame({time: timeSeconds}, plan.fps)
  if (frame >= plan.totalFrames) {
    const end = frameTime(plan.totalFrames, plan.fps)
    throw new EngineError('INVALID_FLAG', `--poster ${timeSeconds}: the render ends at ${end.toFixed(3)} s; give a time from 0 to below ${end.toFixed(3)}`, {
      poster: timeSeconds,
      durationSeconds: end,
    })
  }
  const range = renderedFrames(plan)
  if (frame < range.start || frame >= range.end) {
    const [from, to] = [frameTime(range.start, plan.fps), frameTime(range.end, plan.fps)]
    throw new EngineError(
      'INVALID_FLAG',
      `--poster ${timeSeconds}: that is frame ${frame}, outside --frames ${describeFrameRange(range)}; give a time from ${from.toFixed(3)} to below ${to.toFixed(3)} s (composition time), or widen --frames`,
      {poster: timeSeconds, frame, frames: range},
    )
  }
  return frame
}
