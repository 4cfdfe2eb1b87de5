import {renderPayload} from 'html-video-engine/internal/lib/notify/index.js'
import {restoreFromBucketCache} from '../bucket-render-cache.js'
import type {RenderRecord, RenderResultRecord, StoredPlan} from '../render-records.js'
import type {RenderOutcome} from '../render-outcome.js'
import {notifyRenderWebhook} from '../render-webhook.js'
import type {BucketObjects} from '../s3-objects.js'
import {renderRecordKey, renderResultKey, scratchPrefix} from '../storage-keys.js'
import {elapsedMs, type ActionContext} from './action-context.js'

interface CacheHitInput {
  bucket: BucketObjects
  outputs: BucketObjects
  stored: StoredPlan
  record: RenderRecord
  cacheKey: string
  context: ActionContext
}

/**
 * The plan step of a render whose key the bucket's cache holds: the stored output (its sha256
 * checked) goes to the output key, the render is recorded as a finished one is (result record,
 * webhook, scratch deleted) and ends at the plan with status `cached`; no chunk runs. A miss (or
 * a damaged entry, deleted and noted in the render's record) leaves the render to its chunks.
 */
export async function outputFromCache(input: CacheHitInput): Promise<RenderOutcome | undefined> {
  const {bucket, outputs, stored, record, cacheKey, context} = input
  const settings = stored.output ?? {}
  const lookup = await restoreFromBucketCache(bucket, outputs, cacheKey, stored.outputKey, settings)
  if (!lookup.hit) {
    if (lookup.reason === 'corrupt') {
      const warning = {code: 'render-cache-corrupt', message: `the render cache's entry ${cacheKey.slice(0, 12)} was damaged (${lookup.detail}); it was removed and the output is rendered again`}
      await bucket.putJson(renderRecordKey(stored.renderId), {...record, warnings: [...record.warnings, warning]})
    }
    return undefined
  }
  const {entry} = lookup
  const renderMs = elapsedMs(context)
  const result: RenderResultRecord = {
    renderId: stored.renderId,
    ...(settings.outputBucket && {outputBucket: settings.outputBucket}),
    outputKey: stored.outputKey,
    outputKind: 'file',
    bytes: entry.bytes,
    totalFrames: entry.totalFrames,
    finishedAt: new Date().toISOString(),
    assemble: {durationMs: 0, memoryMb: context.memoryMb},
    chunks: [],
    warnings: [{code: 'render-cached', message: `copied from the render cache (entry ${cacheKey.slice(0, 12)}, sha256 checked): no chunk rendered`}],
  }
  await bucket.putJson(renderResultKey(stored.renderId), result)
  await notifyRenderWebhook(bucket, stored.renderId, renderPayload({id: stored.renderId, output: `s3://${outputs.bucketName}/${stored.outputKey}`, durationSeconds: entry.durationSeconds, renderMs}))
  await bucket.deleteKeys(await bucket.listKeys(scratchPrefix(stored.renderId))).catch(() => {})
  return {
    status: 'cached',
    outputKey: stored.outputKey,
    outputBucket: settings.outputBucket ?? null,
    bytes: entry.bytes,
    totalFrames: entry.totalFrames,
    durationSeconds: entry.durationSeconds,
    sha256: entry.sha256,
    posterKey: null,
    warnings: stored.textWarnings ?? [],
    skippedReason: null,
    renderMs,
  }
}
