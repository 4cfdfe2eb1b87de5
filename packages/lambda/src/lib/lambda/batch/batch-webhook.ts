import {batchPayload, deliverWebhook, renderPayload, type WebhookDelivery, type WebhookPayload, type WebhookTarget} from 'html-video-engine/internal/lib/notify/index.js'
import type {BucketObjects} from '../s3-objects.js'
import {lambdaWebhookPolicy} from '../webhook-policy.js'
import {batchManifestKey, batchWebhookKey, type BatchManifestFile, type BatchManifestRow} from './batch-records.js'

/** Stored by the client that starts the batch: the secret stays in the private bucket, out of every execution's input and history. */
export function storeBatchWebhook(bucket: BucketObjects, batchId: string, target: WebhookTarget): Promise<void> {
  return bucket.putJson(batchWebhookKey(batchId), target)
}

export function readBatchWebhook(bucket: BucketObjects, batchId: string): Promise<WebhookTarget | undefined> {
  return bucket.getJson<WebhookTarget>(batchWebhookKey(batchId))
}

/** Where a row's output (or poster) is, as a webhook and the result sheet name it. */
export function rowObjectUrl(row: Pick<BatchManifestRow, 'outputBucket'>, bucketName: string, key: string): string {
  return `s3://${row.outputBucket ?? bucketName}/${key}`
}

/**
 * A row's call, as a local batch makes it: `render.completed` (also for a row the check pass
 * skipped) or `render.failed` with the render's error, and `row: {index, data}`.
 */
export function rowPayload(row: BatchManifestRow, bucketName: string, data: Record<string, unknown>): WebhookPayload {
  return renderPayload({
    id: row.renderId,
    output: rowObjectUrl(row, bucketName, row.outputKey),
    poster: row.posterKey ? rowObjectUrl(row, bucketName, row.posterKey) : null,
    durationSeconds: row.durationSeconds ?? null,
    renderMs: row.renderMs ?? null,
    error: row.status === 'failed' ? (row.error ?? {code: 'INTERNAL', message: 'the render failed'}) : null,
    row: {index: row.index, data},
  })
}

/** `batch.completed` once a run has ended: `output` is the manifest, `counts` the rows by status. */
export function batchCompletedPayload(manifest: BatchManifestFile, bucketName: string, elapsedMs: number): WebhookPayload {
  const {total: _total, ...counts} = manifest.counts
  return batchPayload({id: manifest.batchId, manifest: `s3://${bucketName}/${batchManifestKey(manifest.batchId)}`, elapsedMs, counts})
}

/** Calls the batch's webhook from the function, to the addresses it may reach from where it runs; never throws. */
export async function deliverBatchWebhook(target: WebhookTarget, payload: WebhookPayload): Promise<WebhookDelivery> {
  return await deliverWebhook(target, payload, {policy: lambdaWebhookPolicy()})
}
