import {EngineError, type ErrorCode} from '../errors/engine-error.js'
import type {WebhookData} from './webhook-payload.js'

/** Most bytes of caller data a webhook body echoes (UTF-8 of its JSON text). */
export const MAX_WEBHOOK_DATA_BYTES = 4096

/**
 * Caller data for the webhook body (`--webhook-data`, the server's `webhookData`): a JSON object of
 * at most MAX_WEBHOOK_DATA_BYTES, so that every call stays small whatever the caller sends. `value`
 * is JSON text (a flag) or already parsed (a request body); `field` names where it was written.
 */
export function parseWebhookData(value: unknown, field: string, code: ErrorCode = 'INVALID_FLAG'): WebhookData {
  const fail = (reason: string, details?: Record<string, unknown>) => new EngineError(code, `${field}: ${reason}`, {field, ...details})
  let parsed = value
  if (typeof value === 'string') {
    if (Buffer.byteLength(value) > MAX_WEBHOOK_DATA_BYTES * 2) throw tooLarge(fail, Buffer.byteLength(value))
    try {
      parsed = JSON.parse(value)
    } catch (error) {
      throw fail(`not valid JSON (${(error as Error).message}); write a JSON object such as '{"campaign":"spring"}'`)
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw fail(`must be a JSON object such as {"campaign":"spring"}, got ${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`}`)
  }
  const bytes = Buffer.byteLength(JSON.stringify(parsed))
  if (bytes > MAX_WEBHOOK_DATA_BYTES) throw tooLarge(fail, bytes)
  return parsed as WebhookData
}

function tooLarge(fail: (reason: string, details?: Record<string, unknown>) => EngineError, bytes: number): EngineError {
  return fail(`is ${bytes.toLocaleString('en-US')} bytes; at most ${MAX_WEBHOOK_DATA_BYTES.toLocaleString('en-US')} bytes of JSON are echoed. Send an id and look the rest up on your side`, {
    bytes,
    limit: MAX_WEBHOOK_DATA_BYTES,
  })
}
