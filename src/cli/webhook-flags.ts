import {Flags} from '@oclif/core'
import {EngineError} from '../lib/errors/engine-error.js'
import {OPEN_POLICY, WEBHOOK_SECRET_ENV, webhookTarget, type WebhookDelivery, type WebhookTarget} from '../lib/notify/index.js'

const webhookUrlFlag = (when: string) => Flags.string({description: `http(s) URL called (POST, signed JSON) ${when}`})

export const webhookFlags = {
  webhook: webhookUrlFlag('when the render ends; with --batch once per row and once at the end'),
  'webhook-secret': Flags.string({description: `key that signs each webhook body (X-Engine-Signature: sha256=<HMAC of timestamp.body>, X-Engine-Timestamp); env ${WEBHOOK_SECRET_ENV}`}),
}

/** The same flags for a distributed render, which has no --batch: one call when it ends. */
export const lambdaWebhookFlags = {
  ...webhookFlags,
  webhook: webhookUrlFlag('when the render ends: once the output is stored, or when it fails'),
}

/** The webhook the user asked for, validated; undefined without --webhook. */
export function webhookFromFlags(flags: {webhook?: string; 'webhook-secret'?: string}, env: NodeJS.ProcessEnv): WebhookTarget | undefined {
  if (flags.webhook === undefined) {
    if (flags['webhook-secret'] !== undefined) throw new EngineError('INVALID_FLAG', '--webhook-secret signs webhook calls: add --webhook <url> or drop it')
    return undefined
  }
  return webhookTarget({
    url: flags.webhook,
    secret: flags['webhook-secret'] ?? env[WEBHOOK_SECRET_ENV],
    urlField: '--webhook',
    secretHint: `pass --webhook-secret <secret> or set ${WEBHOOK_SECRET_ENV}; the receiver checks X-Engine-Signature with it`,
    // The user typed the URL: a receiver on this machine or the local network is their choice.
    policy: OPEN_POLICY,
    code: 'INVALID_FLAG',
  })
}

/** A webhook that could not be delivered is a warning: the render itself succeeded or failed on its own. */
export function describeUndelivered(delivery: WebhookDelivery, row?: number | null): string {
  const where = row === undefined || row === null ? '' : `row ${row}: `
  return `warning [webhook-undelivered]: ${where}${delivery.url} after ${delivery.attempts} attempt(s): ${delivery.error} (delivery ${delivery.deliveryId})`
}
