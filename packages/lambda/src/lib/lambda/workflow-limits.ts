import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

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

/** A Distributed Map runs at most this many child workflows at once (its MaxConcurrency's ceiling). */
export const DISTRIBUTED_MAP_MAX_CONCURRENCY = 10_000

/**
 * How a render's chunks fan out: up to 40 at once an inline Map runs them; more at once need the
 * Distributed Map (see renderStateMachineDefinition), which runs up to 10,000; beyond that they
 * are clamped, and the render says so. The account's Lambda concurrency is the real bound below
 * that: a chunk over it waits for a slot (throttled and retried), and the plan warns about it.
 */
export function chunkFanOut(chunkCount: number, maxParallelChunks: number): {maxParallelChunks: number; distributed: boolean; warning?: Warning} {
  const clamped = Math.min(maxParallelChunks, DISTRIBUTED_MAP_MAX_CONCURRENCY)
  const distributed = Math.min(chunkCount, clamped) > MAP_MAX_CONCURRENCY
  if (clamped === maxParallelChunks) return {maxParallelChunks, distributed}
  return {
    maxParallelChunks: clamped,
    distributed,
    warning: {
      code: 'parallelism-clamped',
      message: `maxParallelChunks ${maxParallelChunks} is above the ${DISTRIBUTED_MAP_MAX_CONCURRENCY} child workflows a Step Functions Distributed Map runs at once: ${DISTRIBUTED_MAP_MAX_CONCURRENCY} chunks run at a time`,
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
