import {deliverWebhook, type WebhookDelivery, type WebhookPayload, type WebhookTarget} from '../notify/index.js'
import type {BucketObjects} from './s3-objects.js'
import {renderWebhookDeliveryKey, renderWebhookKey} from './storage-keys.js'

/**
 * The render's webhook, stored beside its scratch by the caller that starts it: the secret stays
 * in the private bucket instead of the execution input, which anyone who can read the workflow's
 * history would see.
 */
export function storeRenderWebhook(bucket: BucketObjects, renderId: string, target: WebhookTarget): Promise<void> {
  return bucket.putJson(renderWebhookKey(renderId), target)
}

/**
 * Calls the render's webhook, if it has one, and records the delivery beside the render's records
 * (progress shows it). Never throws: the render's own outcome stands whatever happens here.
 */
export async function notifyRenderWebhook(bucket: BucketObjects, renderId: string, payload: WebhookPayload): Promise<WebhookDelivery | undefined> {
  try {
    const target = await bucket.getJson<WebhookTarget>(renderWebhookKey(renderId))
    if (!target) return undefined
    const delivery = await deliverWebhook(target, payload)
    await bucket.putJson(renderWebhookDeliveryKey(renderId), {type: payload.type, ...delivery})
    return delivery
  } catch (error) {
    console.error(`render ${renderId}: the webhook could not be sent: ${(error as Error).message}`)
    return undefined
  }
}
