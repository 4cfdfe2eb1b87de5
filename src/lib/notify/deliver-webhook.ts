import {createHmac, randomUUID} from 'node:crypto'
import {request as httpRequest} from 'node:http'
import {request as httpsRequest} from 'node:https'
import {setTimeout as sleep} from 'node:timers/promises'
import {guardedLookup, OPEN_POLICY, refusedHost, type AddressPolicy} from './address-policy.js'
import {redactUrl} from './redact-url.js'
import {testMilliseconds} from '../trace/test-milliseconds.js'
import type {WebhookPayload} from './webhook-payload.js'
import type {WebhookTarget} from './webhook-target.js'

export const SIGNATURE_HEADER = 'X-Engine-Signature'
export const TIMESTAMP_HEADER = 'X-Engine-Timestamp'
export const DELIVERY_HEADER = 'X-Engine-Delivery'
export const ATTEMPT_TIMEOUT_MS = 10_000
/** Waits before the 2nd and 3rd attempt: 3 attempts in all. */
export const RETRY_DELAYS_MS = [1000, 3000] as const
/**
 * Milliseconds that replace each of the RETRY_DELAYS_MS (still 3 attempts). Read only by tests,
 * which would otherwise sit through 4 s for every delivery they make fail on purpose.
 */
export const TEST_RETRY_ENV = 'ENGINE_TEST_WEBHOOK_RETRY_MS'

function defaultRetryDelays(): readonly number[] {
  return RETRY_DELAYS_MS.map((delay) => testMilliseconds(TEST_RETRY_ENV, delay))
}

/** What happened to one webhook; it is recorded beside the render, never thrown. */
export interface WebhookDelivery {
  deliveryId: string
  url: string
  delivered: boolean
  attempts: number
  /** HTTP status of the last answer, if any came. */
  statusCode?: number
  /** Why the last attempt failed. */
  error?: string
}

export interface DeliverOptions {
  policy?: AddressPolicy
  retryDelaysMs?: readonly number[]
  timeoutMs?: number
}

/**
 * `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` keyed with the secret. The timestamp
 * (Unix seconds, sent as X-Engine-Timestamp) is signed with the body, so a receiver that refuses
 * old timestamps cannot be fed a recorded call again (as Standard Webhooks does).
 */
export function signBody(body: string, secret: string, timestamp: number): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')
}


/** A network error's message can quote the URL it was given; show the redacted one instead. */
function redactSecretsIn(text: string, url: string, shown: string): string {
  return text.split(url).join(shown)
}

interface Answer {
  statusCode?: number
  error?: string
  retry: boolean
}

/**
 * POSTs the payload, signed, and retries network errors, timeouts, 429 and 5xx answers (same body
 * and delivery id each time). Any 2xx is a delivery; other answers are final. Resolves with what
 * happened; never rejects, so a webhook can never fail a render.
 */
export async function deliverWebhook(target: WebhookTarget, payload: WebhookPayload, options: DeliverOptions = {}): Promise<WebhookDelivery> {
  const policy = options.policy ?? OPEN_POLICY
  const delays = options.retryDelaysMs ?? defaultRetryDelays()
  const deliveryId = randomUUID()
  // The caller's data rides on the target, so that every call made for it (rows, the batch, a Lambda render's end) echoes it.
  const body = JSON.stringify(target.data !== undefined && payload.data == null ? {...payload, data: target.data} : payload)
  // Each attempt is signed at its own time, so a retry is as fresh as the first call.
  const headersNow = () => {
    const timestamp = Math.floor(Date.now() / 1000)
    return {
      'Content-Type': 'application/json',
      'User-Agent': 'engine-webhook/1',
      'X-Engine-Event': payload.type,
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signBody(body, target.secret, timestamp),
      [DELIVERY_HEADER]: deliveryId,
    }
  }
  const shown = redactUrl(target.url)
  const refused = refusedHost(new URL(target.url).hostname, policy)
  if (refused) return {deliveryId, url: shown, delivered: false, attempts: 0, error: `refused: ${refused}`}
  let answer: Answer = {retry: true}
  let attempts = 0
  for (; attempts <= delays.length && answer.retry; attempts++) {
    if (attempts > 0) await sleep(delays[attempts - 1]!)
    answer = await post(target.url, body, headersNow(), policy, options.timeoutMs ?? ATTEMPT_TIMEOUT_MS)
    if (answer.error === undefined) return {deliveryId, url: shown, delivered: true, attempts: attempts + 1, statusCode: answer.statusCode}
  }
  return {deliveryId, url: shown, delivered: false, attempts, statusCode: answer.statusCode, error: answer.error === undefined ? undefined : redactSecretsIn(answer.error, target.url, shown)}
}

function post(url: string, body: string, headers: Record<string, string>, policy: AddressPolicy, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest
    let settled = false
    const finish = (answer: Answer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(answer)
    }
    const request = send(url, {method: 'POST', headers: {...headers, 'Content-Length': Buffer.byteLength(body)}, lookup: guardedLookup(policy)}, (response) => {
      const statusCode = response.statusCode ?? 0
      // Drain the answer so the socket is freed; its content does not matter.
      response.resume()
      response.on('end', () => {
        if (statusCode >= 200 && statusCode < 300) finish({statusCode, retry: false})
        else finish({statusCode, error: `the receiver answered HTTP ${statusCode}`, retry: statusCode >= 500 || statusCode === 429})
      })
      response.on('error', (error) => finish({statusCode, error: error.message, retry: true}))
    })
    const timer = setTimeout(() => {
      finish({error: `no answer within ${timeoutMs / 1000} s`, retry: true})
      request.destroy()
    }, timeoutMs)
    request.on('error', (error: NodeJS.ErrnoException) => finish({error: error.message, retry: error.code !== 'EWEBHOOKADDRESS'}))
    request.end(body)
  })
}
