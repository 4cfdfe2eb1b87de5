import {deliverWebhook, type WebhookDelivery, type WebhookPayload, type WebhookTarget} from 'html-video-engine/internal/lib/notify/index.js'
import type {BucketObjects} from './s3-objects.js'
import {renderWebhookDeliveryKey, renderWebhookKey} from './storage-keys.js'
import {lambdaWebhookPolicy} from './webhook-policy.js'

/**
 * The render's webhook, stored beside its scratch by the caller that starts it: the secret stays
 * in the private bucket instead of the execution input, which anyone who can read the workflow's
 * history would see.
 */
export function storeRenderWebhook(bucket: BucketObjects, renderId: string, target: WebhookTarget): Promise<void> {
  return bucket.putJson(renderWebhookKey(renderId), target)
}

/** The render's webhook target, if it has one. */
export function readRenderWebhook(bucket: BucketObjects, renderId: string): Promise<WebhookTarget | undefined> {
  return bucket.getJson<WebhookTarget>(renderWebhookKey(renderId))
}

/**
 * Calls the render's webhook, if it has one, and records the delivery beside the render's records
 * (progress shows it). Never throws: the render's own outcome stands whatever happens here.
 */
export async function notifyRenderWebhook(bucket: BucketObjects, renderId: string, payload: WebhookPayload): Promise<WebhookDelivery | undefined> {
  const target = await readRenderWebhook(bucket, renderId).catch((error: Error) => {
    console.error(`render ${renderId}: the webhook could not be sent: ${error.message}`)
    return undefined
  })
  return deliverRenderWebhook(bucket, renderId, target, payload)
}

/**
 * Calls a webhook target read earlier (a caller that is about to let the scratch be swept reads it
 * first) and records the delivery. Never throws, like notifyRenderWebhook.
 */
export async function deliverRenderWebhook(
  bucket: BucketObjects,
  renderId: string,
  target: WebhookTarget | undefined,
  payload: WebhookPayload,
): Promise<WebhookDelivery | undefined> {
  if (!target) return undefined
  try {
    const delivery = await deliverWebhook(target, payload, {policy: lambdaWebhookPolicy()})
    await bucket.putJson(renderWebhookDeliveryKey(renderId), {type: payload.type, ...delivery})
    return delivery
  } catch (error) {
    console.error(`render ${renderId}: the webhook could not be sent: ${(error as Error).message}`)
    return undefined
  }
}
