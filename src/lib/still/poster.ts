import {extname} from 'node:path'
import {outputExtension, type FormatPlugin} from '../encode/format-plugin.js'
import {EngineError} from '../errors/engine-error.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {stillExtension, stillFrame, type StillFormat} from './still-settings.js'

export const DEFAULT_POSTER_FORMAT: StillFormat = 'jpeg'

/** `<output without extension>.poster.<ext>`; beside the frame directory for png-sequence. */
export function posterPath(output: string, format: FormatPlugin, posterFormat: StillFormat): string {
  const stem = outputExtension(format) === undefined ? output.replace(/[\\/]+$/, '') : output.slice(0, output.length - extname(output).length)
  return `${stem}.poster${stillExtension(posterFormat)}`
}

/** The frame on screen at `timeSeconds` (as `engine still --time`); it must be inside the render. */
export function posterFrame(timeSeconds: number, plan: Pick<RenderPlan, 'fps' | 'totalFrames'>): number {
  const frame = stillFrame({time: timeSeconds}, plan.fps)
  if (frame >= plan.totalFrames) {
    const end = (plan.totalFrames * plan.fps.den) / plan.fps.num
    throw new EngineError('INVALID_FLAG', `--poster ${timeSeconds}: the render ends at ${end.toFixed(3)} s; give a time from 0 to below ${end.toFixed(3)}`, {
      poster: timeSeconds,
      durationSeconds: end,
    })
  }
  return frame
}
