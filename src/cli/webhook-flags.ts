import {randomUUID} from 'node:crypto'
import {Flags} from '@oclif/core'
import {EngineError} from '../lib/errors/engine-error.js'
import {deliverWebhook, MAX_WEBHOOK_DATA_BYTES, OPEN_POLICY, renderPayload, parseWebhookData, WEBHOOK_SECRET_ENV, webhookTarget, type AddressPolicy, type WebhookDelivery, type WebhookTarget} from '../lib/notify/index.js'

const webhookUrlFlag = (when: string) => Flags.string({description: `http(s) URL called (POST, signed JSON) ${when}`})

export const webhookFlags = {
  webhook: webhookUrlFlag('when the render ends; with --batch once per row and once at the end'),
  'webhook-secret': Flags.string({description: `key that signs each webhook body (X-Engine-Signature: sha256=<HMAC of timestamp.body>, X-Engine-Timestamp); env ${WEBHOOK_SECRET_ENV}`}),
  'webhook-data': Flags.string({description: `JSON object echoed as "data" in every webhook body of this render or batch (at most ${MAX_WEBHOOK_DATA_BYTES} bytes), e.g. '{"campaign":"spring"}'`}),
}

/** The same flags for a distributed render, which has no --batch: one call when it ends. */
export const lambdaWebhookFlags = {
  ...webhookFlags,
  webhook: webhookUrlFlag('when the render ends: once the output is stored, or when it fails'),
}

/**
 * The webhook the user asked for, validated; undefined without --webhook. The user typed the URL:
 * by default a receiver on this machine or the local network is their choice; a door whose calls
 * are made elsewhere (the serverless function) passes its own `addresses`.
 */
export function webhookFromFlags(
  flags: {webhook?: string; 'webhook-secret'?: string; 'webhook-data'?: string},
  env: NodeJS.ProcessEnv,
  addresses: {policy: AddressPolicy; refusedHint?: string} = {policy: OPEN_POLICY},
): WebhookTarget | undefined {
  if (flags.webhook === undefined) {
    if (flags['webhook-secret'] !== undefined) throw new EngineError('INVALID_FLAG', '--webhook-secret signs webhook calls: add --webhook <url> or drop it')
    if (flags['webhook-data'] !== undefined) throw new EngineError('INVALID_FLAG', '--webhook-data is echoed in webhook calls: add --webhook <url> or drop it')
    return undefined
  }
  const data = flags['webhook-data'] === undefined ? undefined : parseWebhookData(flags['webhook-data'], '--webhook-data')
  const target = webhookTarget({
    url: flags.webhook,
    secret: flags['webhook-secret'] ?? env[WEBHOOK_SECRET_ENV],
    urlField: '--webhook',
    secretHint: `pass --webhook-secret <secret> or set ${WEBHOOK_SECRET_ENV}; the receiver checks X-Engine-Signature with it`,
    ...addresses,
    code: 'INVALID_FLAG',
  })
  return data === undefined ? target : {...target, data}
}

/** A webhook that could not be delivered is a warning: the render itself succeeded or failed on its own. */
export function describeUndelivered(delivery: WebhookDelivery, row?: number | null): string {
  const where = row === undefined || row === null ? '' : `row ${row}: `
  return `warning [webhook-undelivered]: ${where}${delivery.url} after ${delivery.attempts} attempt(s): ${delivery.error} (delivery ${delivery.deliveryId})`
}

/** Calls the webhook of one render (or still) once its output is in place, or once it failed; an undelivered call is only reported. */
export async function notifyRender(
  webhook: WebhookTarget,
  outcome: {output?: string; poster?: string | null; durationSeconds?: number; renderMs: number; error?: {code: string; message: string}},
  json: boolean,
): Promise<void> {
  const delivery = await deliverWebhook(webhook, renderPayload({id: randomUUID(), ...outcome}))
  if (json) process.stdout.write(JSON.stringify({type: 'webhook', ...delivery}) + '\n')
  else if (!delivery.delivered) process.stderr.write(describeUndelivered(delivery) + '\n')
}
