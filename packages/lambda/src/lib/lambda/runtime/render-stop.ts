import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {BucketObjects} from '../s3-objects.js'
import {renderStopKey, scratchPrefix} from '../storage-keys.js'

/** Why a render ended early; each path that ends one writes the marker first. */
export type StopReason = 'failed' | 'cancelled' | 'timed-out' | 'aborted'

/** `renders/<renderId>/stop.json` */
export interface RenderStopRecord {
  renderId: string
  reason: StopReason
  stoppedAt: string
}

/**
 * Ends a render's scratch for good, in the one order that leaves nothing behind while chunks still
 * run (AWS does not stop a Lambda invocation when its execution or Map stops):
 *
 * 1. the stop marker is written (kept; the first writer's reason stays);
 * 2. the scratch is listed and deleted.
 *
 * Every chunk looks for the marker after each of its own writes (see ChunkStopWatch): a write that
 * landed after the listing was made by a chunk that has not looked yet, and that chunk then finds
 * the marker and deletes what it wrote. `beforeSweep` runs between the two (the failure path calls
 * the webhook there, whose target lives in the scratch). Returns the number of objects deleted.
 */
export async function stopRender(bucket: BucketObjects, renderId: string, reason: StopReason, beforeSweep?: () => Promise<void>): Promise<number> {
  await markStopped(bucket, renderId, reason)
  await beforeSweep?.()
  const scratch = await bucket.listKeys(scratchPrefix(renderId))
  await bucket.deleteKeys(scratch)
  return scratch.length
}

export async function markStopped(bucket: BucketObjects, renderId: string, reason: StopReason): Promise<void> {
  if (await bucket.exists(renderStopKey(renderId))) return
  const record: RenderStopRecord = {renderId, reason, stoppedAt: new Date().toISOString()}
  await bucket.putJson(renderStopKey(renderId), record)
}

export function readStop(bucket: BucketObjects, renderId: string): Promise<RenderStopRecord | undefined> {
  return bucket.getJson<RenderStopRecord>(renderStopKey(renderId))
}

/** What a chunk (or, without a chunk, the assembly) fails with once it finds its render stopped: never retried, and nobody waits for it. */
export function stoppedError(renderId: string, chunk: number | undefined, stop: Pick<RenderStopRecord, 'reason'>): EngineError {
  const who = chunk === undefined ? 'the assembly' : `chunk ${chunk}`
  return new EngineError('CANCELLED', `render ${renderId} ${stop.reason === 'timed-out' ? 'timed out' : stop.reason}: ${who} stopped and removed what it had stored`, {
    renderId,
    ...(chunk !== undefined && {chunk}),
    reason: stop.reason,
  })
}
