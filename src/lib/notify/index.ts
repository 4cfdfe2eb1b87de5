export {deliverWebhook, signBody, SIGNATURE_HEADER, DELIVERY_HEADER, type WebhookDelivery, type DeliverOptions} from './deliver-webhook.js'
export {renderPayload, batchPayload, type WebhookPayload, type WebhookEventType, type RenderOutcome} from './webhook-payload.js'
export {webhookTarget, webhookUrlSchema, WEBHOOK_SECRET_ENV, type WebhookTarget} from './webhook-target.js'
export {OPEN_POLICY, type AddressPolicy} from './address-policy.js'
