import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {WebhookDelivery} from 'html-video-engine/internal/lib/notify/index.js'
import {batchRowKey, type BatchRowRecord} from '../batch/batch-records.js'
import {deliverBatchWebhook, readBatchWebhook, rowPayload} from '../batch/batch-webhook.js'
import type {NotifyRowEvent} from '../render-input.js'
import {BucketObjects} from '../s3-objects.js'
import type {ActionContext} from './action-context.js'
import {manifestRow} from './finish-batch-action.js'

/**
 * A batch row has ended and its record is written: calls the batch's webhook for it (the row's
 * outcome and `row: {index, data}`) and keeps the delivery in the row's record, where the
 * manifest takes it from. An undelivered call is recorded, never the row's failure.
 */
export async function notifyRowAction(event: NotifyRowEvent, context: ActionContext): Promise<WebhookDelivery | undefined> {
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const [target, record] = await Promise.all([readBatchWebhook(bucket, event.batchId), bucket.getJson<BatchRowRecord>(batchRowKey(event.batchId, event.index))])
  if (!target) return undefined
  if (!record) throw new EngineError('INTERNAL', `batch ${event.batchId}: row ${event.index} ended without its record`, {batchId: event.batchId, index: event.index})
  const delivery = await deliverBatchWebhook(target, rowPayload(manifestRow(record), event.bucketName, event.data))
  await bucket.putJson(batchRowKey(event.batchId, event.index), {...record, webhook: delivery})
  return delivery
}
