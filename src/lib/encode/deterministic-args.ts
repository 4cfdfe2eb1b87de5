import type {RenderPlan} from '../plan/render-plan.js'

/**
 * Encoder threads of every segment. x264's and x265's output depends on their thread count: a
 * fixed count keeps the bits the same on every machine and in every chunk, and two threads let
 * one worker's encode overlap its own capture.
 */
export const ENCODER_THREADS = 2

/**
 * One keyframe at the start of every segment and none inside it: the GOP is the segment, never
 * longer (`-g`), never cut early by a scene change (`-keyint_min`, `-sc_threshold 0`). Each
 * segment is its own encode, so its GOP is closed and it depends on no frame outside its range.
 */
export function keyframeArgs(plan: Pick<RenderPlan, 'segmentFrames'>): string[] {
  const frames = String(plan.segmentFrames)
  return ['-g', frames, '-keyint_min', frames, '-sc_threshold', '0']
}

/**
 * Leaves out of a file everything that changes between runs of the same ffmpeg on the same
 * input: the Matroska segment UID and date, library version strings in encoder and muxer tags.
 * With it a segment's bytes depend only on the plan and its frames.
 */
export const BITEXACT_MUX: readonly string[] = ['-fflags', '+bitexact']
export const BITEXACT_VIDEO: readonly string[] = ['-flags:v', '+bitexact']
export const BITEXACT_AUDIO: readonly string[] = ['-flags:a', '+bitexact']
