import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {FrameRange} from 'html-video-engine/internal/lib/plan/render-plan.js'
import {gridSegments} from 'html-video-engine/internal/lib/plan/segment-grid.js'

export const DEFAULT_CHUNK_SIZE = 240
export const DEFAULT_MAX_PARALLEL_CHUNKS = 16

export interface ChunkTuning {
  /** Frames per chunk (default 240). Wins over `targetChunkFrames`. */
  chunkSize?: number
  /** Chunks rendered at once (default 16); with `targetChunkFrames` also the most chunks a render gets. */
  maxParallelChunks?: number
  /** Aim for chunks of about this many frames, with at most `maxParallelChunks` chunks. */
  targetChunkFrames?: number
}

export interface ChunkPlan {
  /** Contiguous runs of whole grid segments covering the render's frames exactly once, in order. */
  chunks: FrameRange[]
  /** The Map state's MaxConcurrency for this render. */
  maxParallelChunks: number
  /** How the count was chosen, for progress output and logs. */
  mode: 'chunk-size' | 'target-chunk-frames'
}

/**
 * Chooses the chunks of a distributed render. Every chunk is a run of whole segments of the plan's
 * grid (`segmentFrames` each, the last one shorter), so a chunk encodes exactly the segments a
 * local render encodes and the assembled output is the same file.
 *
 * - `chunkSize` (given, or the default 240 when no target is given): chunks of chunkSize frames
 *   rounded up to whole segments, the last one shorter; at most ceil(totalFrames / chunkSize)
 *   chunks. `maxParallelChunks` does not merge chunks: when there are more chunks than that, the
 *   Map state runs `maxParallelChunks` at a time and starts the next as one finishes.
 * - `targetChunkFrames` without `chunkSize`: clamp(ceil(totalFrames / targetChunkFrames), 1,
 *   maxParallelChunks) chunks, the segments shared out as evenly as possible (earlier chunks take
 *   the remainder); a render that would need more chunks stays at the cap, with longer chunks, and
 *   one with fewer segments than that gets one chunk per segment.
 *
 * Either way no chunk is empty. `frames` is the frame count (frames 0 to frames - 1) or, for a
 * `--frames` render, its range: the grid stays the composition's, so the range's first and last
 * segments may be partial, and the counts above are of the range's frames and segments.
 */
export function planChunks(frames: number | FrameRange, segmentFrames: number, tuning: ChunkTuning = {}): ChunkPlan {
  const range = typeof frames === 'number' ? {start: 0, end: frames} : frames
  const totalFrames = range.end - range.start
  assertPositiveInteger(totalFrames, 'totalFrames')
  const maxParallelChunks = tuning.maxParallelChunks ?? DEFAULT_MAX_PARALLEL_CHUNKS
  assertPositiveInteger(maxParallelChunks, 'maxParallelChunks')
  const segments = gridSegments(range, segmentFrames)
  const segmentCount = segments.length
  const chunkOf = (firstSegment: number, count: number): FrameRange => ({
    start: segments[firstSegment]!.start,
    end: segments[Math.min(firstSegment + count, segmentCount) - 1]!.end,
  })
  if (tuning.chunkSize === undefined && tuning.targetChunkFrames !== undefined) {
    assertPositiveInteger(tuning.targetChunkFrames, 'targetChunkFrames')
    const count = Math.min(Math.max(Math.ceil(totalFrames / tuning.targetChunkFrames), 1), maxParallelChunks, segmentCount)
    const chunks: FrameRange[] = []
    for (let i = 0, first = 0; i < count; i++) {
      const taken = Math.floor(segmentCount / count) + (i < segmentCount % count ? 1 : 0)
      chunks.push(chunkOf(first, taken))
      first += taken
    }
    return {chunks, maxParallelChunks, mode: 'target-chunk-frames'}
  }
  const chunkSize = tuning.chunkSize ?? DEFAULT_CHUNK_SIZE
  assertPositiveInteger(chunkSize, 'chunkSize')
  // Rounding up keeps the spec's bound: chunks of at least chunkSize frames are at most ceil(total / chunkSize).
  const segmentsPerChunk = Math.ceil(chunkSize / segmentFrames)
  const chunks: FrameRange[] = []
  for (let first = 0; first < segmentCount; first += segmentsPerChunk) chunks.push(chunkOf(first, segmentsPerChunk))
  return {chunks, maxParallelChunks, mode: 'chunk-size'}
}

function assertPositiveInteger(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new EngineError('INVALID_CONFIG', `config.${field}: ${JSON.stringify(value)} is not a positive integer; use a whole number of at least 1`, {
      field,
      value,
    })
  }
}

/** What bounds the functions running at once, as the stack record knows it. */
export interface ConcurrencyLimits {
  /** The function's reserved concurrency. */
  reservedConcurrency?: number
  /** The account's pool for functions without reserved concurrency, read at deploy. */
  unreservedConcurrency?: number
}

/**
 * The limit that bounds the stack's functions at once: the function's reserved concurrency, else
 * the account's unreserved pool; undefined when the stack record knows neither.
 */
export function bindingConcurrency(limits: ConcurrencyLimits): {limit: number; reserved: boolean} | undefined {
  if (limits.reservedConcurrency !== undefined) return {limit: limits.reservedConcurrency, reserved: true}
  return limits.unreservedConcurrency === undefined ? undefined : {limit: limits.unreservedConcurrency, reserved: false}
}

/** Functions a render runs at once. */
export function chunksAtOnce(plan: ChunkPlan): number {
  return Math.min(plan.chunks.length, plan.maxParallelChunks)
}

/**
 * `atOnce` functions run at once (see chunksAtOnce). Above the function's reserved
 * concurrency, or without one above the account's unreserved pool (10 on a new account), Lambda
 * throttles the extra invocations: the Map state retries them until a slot frees
 * (THROTTLE_RETRY: up to 36 minutes), so the render takes longer.
 */
export function throttledChunksWarning(atOnce: number, limits: ConcurrencyLimits): {code: 'chunks-throttled'; message: string} | undefined {
  const binding = bindingConcurrency(limits)
  if (!binding || atOnce <= binding.limit) return undefined
  const {limit, reserved} = binding
  const what = reserved ? `the function's reserved concurrency is ${limit}` : `the account runs at most ${limit} functions at once (its unreserved concurrency)`
  const raise = reserved ? `deploy with --concurrency ${atOnce} or more` : 'ask AWS for a higher "Concurrent executions" quota (Service Quotas, AWS Lambda)'
  return {
    code: 'chunks-throttled',
    message:
      `${atOnce} chunks run at once but ${what}: invocations above it are throttled and wait for a free slot, ` +
      `so the render takes longer (and fails if a chunk waits over 36 minutes); use --max-parallel-chunks ${limit} (or fewer, larger chunks), or ${raise}`,
  }
}
