import {z} from 'zod'
import {EngineError, type ErrorCode} from '../errors/engine-error.js'
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

export async function cancelRender(connection: ServerConnection, requestId: string): Promise<void> {
  await serverFetch(connection, `/render/${encodeURIComponent(requestId)}`, {method: 'DELETE'})
}

/**
 * Posts a render request and yields its stream events until the final `complete` or `error`.
 * Aborting `signal` closes the connection, which cancels the render on the server.
 */
export async function* streamRender(connection: ServerConnection, body: RenderStreamBody, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
  const response = await serverFetch(connection, '/render/stream', {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Accept: 'text/event-stream'},
    body: JSON.stringify(body),
    signal,
  })
  if (!response.body) throw new EngineError('SERVER_UNAVAILABLE', 'the producer server sent an empty stream')
  try {
    for await (const message of readEventStream(response.body)) {
      const event = JSON.parse(message.data) as StreamEvent
      yield event
      if (event.type === 'complete' || event.type === 'error') return
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason
    throw new EngineError('SERVER_UNAVAILABLE', `the connection to the producer server at ${connection.url} broke: ${(error as Error).message}`)
  }
  throw new EngineError('SERVER_UNAVAILABLE', `the producer server at ${connection.url} closed the stream before the render finished`)
}
