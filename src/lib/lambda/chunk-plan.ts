import {EngineError} from '../errors/engine-error.js'
import type {FrameRange} from '../plan/render-plan.js'
import {splitFrames} from '../plan/worker-count.js'

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
  /** Contiguous ranges covering frames 0..totalFrames exactly once, in order. */
  chunks: FrameRange[]
  /** The Map state's MaxConcurrency for this render. */
  maxParallelChunks: number
  /** How the count was chosen, for progress output and logs. */
  mode: 'chunk-size' | 'target-chunk-frames'
}

/**
 * Chooses the chunks of a distributed render.
 *
 * - `chunkSize` (given, or the default 240 when no target is given): chunks of exactly that many
 *   frames, the last one shorter; ceil(totalFrames / chunkSize) chunks. `maxParallelChunks` does
 *   not merge chunks: when there are more chunks than that, the Map state runs
 *   `maxParallelChunks` at a time and starts the next as one finishes.
 * - `targetChunkFrames` without `chunkSize`: clamp(ceil(totalFrames / targetChunkFrames), 1,
 *   maxParallelChunks) chunks of near-equal size (earlier chunks take the remainder); a render that
 *   would need more chunks stays at the cap, with longer chunks.
 *
 * Either way the count never exceeds ceil(totalFrames / size of the longest chunk), so no chunk is empty.
 */
export function planChunks(totalFrames: number, tuning: ChunkTuning = {}): ChunkPlan {
  assertPositiveInteger(totalFrames, 'totalFrames')
  const maxParallelChunks = tuning.maxParallelChunks ?? DEFAULT_MAX_PARALLEL_CHUNKS
  assertPositiveInteger(maxParallelChunks, 'maxParallelChunks')
  if (tuning.chunkSize === undefined && tuning.targetChunkFrames !== undefined) {
    assertPositiveInteger(tuning.targetChunkFrames, 'targetChunkFrames')
    const count = Math.min(Math.max(Math.ceil(totalFrames / tuning.targetChunkFrames), 1), maxParallelChunks)
    return {chunks: splitFrames(totalFrames, count), maxParallelChunks, mode: 'target-chunk-frames'}
  }
  const chunkSize = tuning.chunkSize ?? DEFAULT_CHUNK_SIZE
  assertPositiveInteger(chunkSize, 'chunkSize')
  const chunks: FrameRange[] = []
  for (let start = 0; start < totalFrames; start += chunkSize) chunks.push({start, end: Math.min(start + chunkSize, totalFrames)})
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

/**
 * A render runs min(chunks, maxParallelChunks) functions at once. Above the function's reserved
 * concurrency, Lambda throttles the extra invocations: the Map state retries them a few times with
 * backoff, so the render takes longer, and fails when a chunk stays throttled through every retry.
 */
export function throttledChunksWarning(plan: ChunkPlan, reservedConcurrency: number | undefined): {code: 'chunks-throttled'; message: string} | undefined {
  const atOnce = Math.min(plan.chunks.length, plan.maxParallelChunks)
  if (reservedConcurrency === undefined || atOnce <= reservedConcurrency) return undefined
  return {
    code: 'chunks-throttled',
    message:
      `${atOnce} chunks run at once but the function's reserved concurrency is ${reservedConcurrency}: invocations above it are throttled and retried, ` +
      `so the render takes longer (or fails when retries run out); use --max-parallel-chunks ${reservedConcurrency} (or fewer, larger chunks), or deploy with --concurrency ${atOnce} or more`,
  }
}
