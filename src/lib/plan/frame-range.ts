import {EngineError} from '../errors/engine-error.js'
import {formatFps, frameTime, type Fps} from './fps.js'
import type {FrameRange, RenderPlan} from './render-plan.js'

/**
 * `--frames` as written: `A-B` (frames A to B, 0-based, inclusive), `A-` (A to the end) or `N`
 * (one frame); a config file or request body may also give `N` as a number.
 */
export type FramesOption = string | number

/** Frames a user asked for, before the composition's length is known; `last` absent: to the end. */
export interface FrameSelection {
  first: number
  last?: number
}

const SYNTAX = /^(\d+)(-(\d*))?$/
const HOW = 'write A-B for frames A to B (0-based, inclusive), A- for A to the end, or N for one frame, such as 30-59'

/**
 * Reads a `--frames` value; the reason it is not one otherwise (for the option schema, which names
 * the flag or key and the value around it).
 */
export function parseFrameSelection(value: FramesOption): FrameSelection | {problem: string} {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? {first: value, last: value} : {problem: HOW}
  }
  const match = SYNTAX.exec(value.trim())
  if (!match) return {problem: HOW}
  const first = Number(match[1])
  if (match[2] === undefined) return {first, last: first}
  if (match[3] === '') return {first}
  const last = Number(match[3])
  if (first > last) return {problem: `frame ${first} comes after frame ${last}; write the lower frame first: ${last}-${first}`}
  return {first, last}
}

/**
 * The frames a render outputs, checked against the composition's length: undefined when the
 * selection is every frame, so that `--frames 0-` plans (and encodes) exactly like no `--frames`.
 */
export function resolveFrameRange(value: FramesOption | undefined, plan: {totalFrames: number; fps: Fps}): FrameRange | undefined {
  if (value === undefined) return undefined
  const selection = parseFrameSelection(value)
  if ('problem' in selection) throw new EngineError('INVALID_FLAG', `--frames: ${JSON.stringify(value)} is invalid (${selection.problem})`, {frames: value})
  const lastFrame = plan.totalFrames - 1
  const past = (frame: number, fix: string) =>
    new EngineError(
      'INVALID_FLAG',
      `--frames ${value}: frame ${frame} is past the end; the composition has ${plan.totalFrames} frames (0-${lastFrame}: ${frameTime(plan.totalFrames, plan.fps).toFixed(3)} s at ${formatFps(plan.fps)} fps), ${fix}`,
      {frames: value, totalFrames: plan.totalFrames},
    )
  if (selection.first > lastFrame) throw past(selection.first, `so start at ${lastFrame} at most`)
  if (selection.last !== undefined && selection.last > lastFrame) {
    throw past(selection.last, `so end at ${lastFrame} at most: --frames ${selection.first}-${lastFrame} (or ${selection.first}- to the end)`)
  }
  const range = {start: selection.first, end: (selection.last ?? lastFrame) + 1}
  return range.start === 0 && range.end === plan.totalFrames ? undefined : range
}

/** The frames a plan's output holds: its `--frames` range, or the whole composition. */
export function renderedFrames(plan: Pick<RenderPlan, 'frameRange' | 'totalFrames'>): FrameRange {
  return plan.frameRange ?? {start: 0, end: plan.totalFrames}
}

/** `30-59`, as `--frames` writes it (inclusive). */
export function describeFrameRange(range: FrameRange): string {
  return `${range.start}-${range.end - 1}`
}
