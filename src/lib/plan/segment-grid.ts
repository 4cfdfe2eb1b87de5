import {fpsValue, type Fps} from './fps.js'
import type {FrameRange} from './render-plan.js'

/**
 * The longest default segment, and so the keyframe interval of a long render, unless the render
 * says otherwise (`keyframeInterval`). Every segment is an ffmpeg start, a keyframe and an encoder
 * pipeline that fills and drains; with two workers on two cores, a 12 s 1080p render on 2 s
 * segments (6) ran at 0.85-0.90x the speed of one segment per worker, on 3 s segments (4) at
 * 0.98-1.0x (npm run bench and paired runs). 4 s keeps seeking easy and the files small.
 */
export const DEFAULT_KEYFRAME_INTERVAL_SECONDS = 4
/**
 * Without an explicit interval a render gets at least this many segments to share among workers
 * (a 12 s render: four of 3 s rather than three of 4 s, which would leave one of two workers idle
 * for a third of the time), down to MIN_DEFAULT_KEYFRAME_INTERVAL_SECONDS.
 */
export const MIN_DEFAULT_SEGMENTS = 4
export const MIN_DEFAULT_KEYFRAME_INTERVAL_SECONDS = 0.5
export const MIN_KEYFRAME_INTERVAL_SECONDS = 0.1
export const MAX_KEYFRAME_INTERVAL_SECONDS = 60

/**
 * Frames per segment, from the frame rate and the render's length only (never from how the work
 * is shared out): `keyframeIntervalSeconds` in whole frames when given (30 fps, 0.5 s -> 15);
 * otherwise a quarter of the render, between 0.5 s and 4 s of frames (30 fps: 120 from 16 s on,
 * 90 for 12 s, 15 for 2 s). At least one frame.
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
