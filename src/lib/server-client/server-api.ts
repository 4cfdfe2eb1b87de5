import {setTimeout} from 'node:timers/promises'
import {z} from 'zod'
import {EngineError, isEngineError, type ErrorCode} from '../errors/engine-error.js'
import type {QueueStatus} from '../server/render-queue.js'
import type {RenderStreamBody} from '../server/request-schema.js'
import type {StreamEvent} from '../server/stream-events.js'
import {readEventStream} from './parse-sse.js'

/** Where a producer server is and how to authenticate to it. */
export interface ServerConnection {
  /** Base address, such as http://127.0.0.1:9847 */
  url: string
  /** Bearer token (servers bound to a non-loopback address require one). */
  token?: string
}

const errorBodySchema = z.object({error: z.object({code: z.string(), message: z.string(), details: z.unknown().optional()})})

const queueStatusSchema = z.object({
  maxConcurrentRenders: z.number().int(),
  activeRenders: z.number().int(),
  queuedRenders: z.number().int(),
})

/**
 * The absolute URL of `path` on the server. A URL the server names (an `outputUrl`, a listing's
 * file) must be on the server's own origin: anything else is refused before a request is made, so
 * the bearer token never leaves for another host and nothing is fetched from one.
 */
export function serverUrl(connection: ServerConnection, path: string): URL {
  const base = new URL(connection.url)
  const url = new URL(path, base)
  if (url.origin !== base.origin) {
    throw new EngineError(
      'SERVER_RESPONSE_INVALID',
      `the producer server named ${url.href}, which is not on its own origin ${base.origin}; refused (the token is sent only to the server, and outputs are downloaded only from it)`,
      {url: url.href, server: base.origin},
    )
  }
  return url
}

/** fetch against the server; an unreachable server or an error response becomes an EngineError. */
export async function serverFetch(connection: ServerConnection, path: string, init: RequestInit = {}): Promise<Response> {
  const url = serverUrl(connection, path)
  const headers = new Headers(init.headers)
  if (connection.token !== undefined) headers.set('Authorization', `Bearer ${connection.token}`)
  let response: Response
  try {
    // The server never redirects; following one could carry the token elsewhere.
    response = await fetch(url, {...init, headers, redirect: 'error'})
  } catch (error) {
    if (init.signal?.aborted) throw init.signal.reason
    const cause = (error as {cause?: {code?: string; message?: string}}).cause
    throw new EngineError(
      'SERVER_UNAVAILABLE',
      `could not reach the producer server at ${connection.url} (${cause?.code ?? cause?.message ?? (error as Error).message}); start it with "engine serve" or check --server`,
      {url: url.href},
    )
  }
  if (!response.ok) throw await responseError(response, url)
  return response
}

async function responseError(response: Response, url: URL): Promise<EngineError> {
  const text = await response.text()
  try {
    const {error} = errorBodySchema.parse(JSON.parse(text))
    return new EngineError(error.code as ErrorCode, error.message, error.details ?? undefined)
  } catch {
    return new EngineError('SERVER_UNAVAILABLE', `the producer server answered ${response.status} ${response.statusText} for ${url.pathname}: ${text.slice(0, 200)}`, {
      status: response.status,
    })
  }
}

export async function getQueueStatus(connection: ServerConnection, signal?: AbortSignal): Promise<QueueStatus> {
  const response = await serverFetch(connection, '/render/queue', {signal})
  return queueStatusSchema.parse(await response.json())
}

export async function cancelRender(connection: ServerConnection, requestId: string, signal?: AbortSignal): Promise<void> {
  await serverFetch(connection, `/render/${encodeURIComponent(requestId)}`, {method: 'DELETE', signal})
}

/** A broken stream is followed again this many times in a row (GET /render/:id/events), waiting 0.5 s, 1 s, 2 s … */
export const RESUME_ATTEMPTS = 5
const RESUME_FIRST_DELAY_MS = 500

/**
 * Posts a render request and yields its stream events until the final `complete` or `error`.
 * A connection that breaks is resumed where it stopped (Last-Event-ID), so a network hiccup costs
 * the render nothing; aborting `signal` cancels the render on the server (DELETE) and throws.
 */
export async function* streamRender(connection: ServerConnection, body: RenderStreamBody, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
  let response: Response | undefined = await serverFetch(connection, '/render/stream', {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Accept: 'text/event-stream'},
    body: JSON.stringify(body),
    signal,
  })
  let requestId: string | undefined
  let lastEventId = 0
  let failures = 0
  let problem = 'closed the stream before the render finished'
  const cancelled = async () => {
    if (requestId !== undefined) await cancelRender(connection, requestId, AbortSignal.timeout(5000)).catch(() => {})
    return signal?.reason as unknown
  }
  for (;;) {
    if (response?.body) {
      try {
        for await (const message of readEventStream(response.body)) {
          const event = JSON.parse(message.data) as StreamEvent
          requestId = event.requestId
          if (message.id !== undefined && /^\d+$/.test(message.id)) lastEventId = Number(message.id)
          failures = 0
          yield event
          if (event.type === 'complete' || event.type === 'error') return
        }
        problem = 'closed the stream before the render finished'
      } catch (error) {
        if (signal?.aborted) throw await cancelled()
        problem = `broke the connection: ${(error as Error).message}`
      }
    }
    if (requestId === undefined || failures >= RESUME_ATTEMPTS) {
      throw new EngineError('SERVER_UNAVAILABLE', `the producer server at ${connection.url} ${problem}${requestId === undefined ? '' : ` (render ${requestId}, resumed ${failures} times)`}`)
    }
    await setTimeout(RESUME_FIRST_DELAY_MS * 2 ** failures++, undefined, {signal}).catch(() => {})
    if (signal?.aborted) throw await cancelled()
    try {
      response = await resumeStream(connection, requestId, lastEventId, signal)
    } catch (error) {
      if (signal?.aborted) throw await cancelled()
      // The server answered but no longer knows the render (it restarted): nothing to resume.
      if (isEngineError(error) && error.code !== 'SERVER_UNAVAILABLE') throw error
      problem = `could not be reached to resume the stream (${(error as Error).message})`
      response = undefined
    }
  }
}

/** The events of a render after `lastEventId`, then live: how a dropped stream is picked up again. */
export function resumeStream(connection: ServerConnection, requestId: string, lastEventId: number, signal?: AbortSignal): Promise<Response> {
  return serverFetch(connection, `/render/${encodeURIComponent(requestId)}/events`, {headers: {Accept: 'text/event-stream', 'Last-Event-ID': String(lastEventId)}, signal})
}
