import {z} from 'zod'
import {EngineError, type ErrorCode} from '../errors/engine-error.js'
import {refusedHost, type AddressPolicy} from './address-policy.js'
import {redactUrl} from './redact-url.js'
import type {WebhookData} from './webhook-payload.js'

export const WEBHOOK_SECRET_ENV = 'ENGINE_WEBHOOK_SECRET'
const MAX_URL_LENGTH = 2048
const SERVER_REFUSED_HINT = 'This server only calls public addresses; its operator can allow a host with engine serve --allow-webhook-host <host>'

/** Where to deliver, the key that signs every body, and the caller's data every body echoes. */
export interface WebhookTarget {
  url: string
  secret: string
  /** `--webhook-data`: echoed as the body's `data` (checked by parseWebhookData). */
  data?: WebhookData
}

export const webhookUrlSchema = z
  .string()
  .max(MAX_URL_LENGTH)
  .superRefine((text, context) => {
    if (!URL.canParse(text)) context.addIssue({code: 'custom', message: 'must be an absolute URL'})
    else if (!['http:', 'https:'].includes(new URL(text).protocol)) context.addIssue({code: 'custom', message: 'must be an http:// or https:// URL'})
  })

interface TargetInput {
  url: string
  secret: string | undefined
  /** How the caller wrote each field, for messages: `--webhook`, `body field "webhook.url"`. */
  urlField: string
  secretHint: string
  policy: AddressPolicy
  code: ErrorCode
  /** What to do about a refused address (default: a server's, naming `--allow-webhook-host`). */
  refusedHint?: string
}

/**
 * Validates a webhook at the door: an http(s) URL the policy lets us call, and a secret to sign
 * with (an unsigned call could be forged by anyone who learns the URL).
 */
export function webhookTarget(input: TargetInput): WebhookTarget {
  const parsed = webhookUrlSchema.safeParse(input.url)
  if (!parsed.success) {
    throw new EngineError(input.code, `${input.urlField}: ${JSON.stringify(input.url.slice(0, 100))} ${parsed.error.issues[0]!.message}, e.g. https://example.com/hooks/render`, {
      field: input.urlField,
    })
  }
  const refused = refusedHost(new URL(input.url).hostname, input.policy)
  if (refused) {
    throw new EngineError(
      input.code,
      `${input.urlField}: ${redactUrl(input.url)} is refused: ${refused}. ${input.refusedHint ?? SERVER_REFUSED_HINT}`,
      {field: input.urlField, url: redactUrl(input.url)},
    )
  }
  const secret = input.secret?.trim()
  if (!secret) {
    throw new EngineError(input.code, `${input.urlField} needs a signing secret: ${input.secretHint}`, {field: input.urlField})
  }
  return {url: input.url, secret}
}
