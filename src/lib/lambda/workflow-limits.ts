import {EngineError} from '../errors/engine-error.js'

/** An inline Map state runs at most this many iterations at once on AWS, whatever MaxConcurrency asks. */
export const MAP_MAX_CONCURRENCY = 40
/** A state's input or output, and an execution's input, on a standard workflow: 256 KiB. */
export const MAX_STATE_DATA_BYTES = 262_144
/** Events in one execution's history; past it the execution fails. */
export const MAX_HISTORY_EVENTS = 25_000
/** Events a chunk adds when it runs once: iteration started, task entered, scheduled, started, succeeded, task exited, iteration succeeded. */
export const HISTORY_EVENTS_PER_CHUNK = 7
/**
 * Chunks one render may have: 7,000 events when each runs once, leaving 18,000 (9 per chunk on
 * average; a throttled retry adds 2, a failed one 3) for retries before the 25,000-event history
 * fills. Plan, Assemble and the failure path take a few dozen more.
 */
export const MAX_CHUNKS = 1000

export interface Warning {
  code: string
  message: string
}

/** More than 40 parallel chunks cannot run at once on AWS: clamp, and say so. */
export function clampParallelChunks(maxParallelChunks: number): {maxParallelChunks: number; warning?: Warning} {
  if (maxParallelChunks <= MAP_MAX_CONCURRENCY) return {maxParallelChunks}
  return {
    maxParallelChunks: MAP_MAX_CONCURRENCY,
    warning: {
      code: 'parallelism-clamped',
      message: `maxParallelChunks ${maxParallelChunks} is above the ${MAP_MAX_CONCURRENCY} iterations a Step Functions inline Map runs at once: ${MAP_MAX_CONCURRENCY} chunks run at a time`,
    },
  }
}

/**
 * A render whose chunks would overflow the workflow's history or its state data fails in the plan
 * step, before any chunk runs, with the flags that make fewer chunks.
 */
export function assertWithinWorkflowBudget(chunkCount: number, stateBytes: number): void {
  const fix = 'use a larger --chunk-size, or --target-chunk-frames (which caps the count at --max-parallel-chunks)'
  if (chunkCount > MAX_CHUNKS) {
    throw new EngineError(
      'INVALID_CONFIG',
      `the render would have ${chunkCount} chunks, more than the ${MAX_CHUNKS} one workflow execution can track within Step Functions' ${MAX_HISTORY_EVENTS}-event history: ${fix}`,
      {chunks: chunkCount, maxChunks: MAX_CHUNKS},
    )
  }
  if (stateBytes > MAX_STATE_DATA_BYTES) {
    throw new EngineError(
      'INVALID_CONFIG',
      `the workflow state after planning would be ${stateBytes} bytes (the render input plus ${chunkCount} chunk ranges), over Step Functions' limit of ${MAX_STATE_DATA_BYTES} bytes: ${fix}, or pass smaller --variables (media as URLs)`,
      {stateBytes, limit: MAX_STATE_DATA_BYTES, chunks: chunkCount},
    )
  }
}
