import {fpsValue, type Fps} from './fps.js'
import type {FrameRange} from './render-plan.js'

/**
 * Seconds between keyframes, and so the length of one encoded segment, unless the render says
 * otherwise (`keyframeInterval`): two seconds is the usual streaming GOP, short enough for seeking,
 * long enough that the extra keyframes cost little.
 */
export const DEFAULT_KEYFRAME_INTERVAL_SECONDS = 2
/**
 * Without an explicit interval, a render shorter than 4 x 2 s gets shorter segments so that there
 * are this many to share among workers (a 4 s render would otherwise be 2 segments, leaving a third
 * worker idle), but never shorter than MIN_DEFAULT_KEYFRAME_INTERVAL_SECONDS. Not more: every
 * segment is an ffmpeg start and a keyframe, and with 16 a 12 s 1080p render was 11-21 % slower and
 * 1.5x larger than with 2 s segments (npm run bench).
 */
export const MIN_DEFAULT_SEGMENTS = 4
export const MIN_DEFAULT_KEYFRAME_INTERVAL_SECONDS = 0.5
export const MIN_KEYFRAME_INTERVAL_SECONDS = 0.1
export const MAX_KEYFRAME_INTERVAL_SECONDS = 60

/**
 * Frames per segment, from the frame rate and the render's length only (never from how the work
 * is shared out): `keyframeIntervalSeconds` in whole frames when given (30 fps, 0.5 s -> 15);
 * otherwise 2 s of frames (30 fps -> 60; 29.97 -> 60), shortened for renders under 8 s to give
 * 4 segments, down to 0.5 s. At least one frame.
 */
export function segmentFrames(fps: Fps, totalFrames: number, keyframeIntervalSeconds?: number): number {
  const frames = (seconds: number) => Math.max(1, Math.round(seconds * fpsValue(fps)))
  if (keyframeIntervalSeconds !== undefined) return frames(keyframeIntervalSeconds)
  const shortest = frames(MIN_DEFAULT_KEYFRAME_INTERVAL_SECONDS)
  return Math.min(frames(DEFAULT_KEYFRAME_INTERVAL_SECONDS), Math.max(shortest, Math.ceil(totalFrames / MIN_DEFAULT_SEGMENTS)))
}

/**
 * The segments of `range` on the render's fixed grid: cuts fall on every multiple of
 * `framesPerSegment` counted from frame 0 of the composition, never on anything that depends on
 * how the work is shared out. Any worker count, any chunking and any sub-range therefore encode
 * the same segments, and so the same bytes. The first and last segment are shorter when the range
 * does not start or end on a cut.
 */
export function gridSegments(range: FrameRange, framesPerSegment: number): FrameRange[] {
  const segments: FrameRange[] = []
  let start = range.start
  while (start < range.end) {
    const end = Math.min((Math.floor(start / framesPerSegment) + 1) * framesPerSegment, range.end)
    segments.push({start, end})
    start = end
  }
  return segments
}
