import {createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import polka, {type PolkaRequest} from 'polka'
import {EngineError} from '../errors/engine-error.js'
import {assertAuthorized} from './authorize.js'
import {assertHostAllowed} from './check-host.js'
import {sendError, sendJson} from './http-errors.js'
import {MAX_BODY_BYTES, readJsonBody} from './read-json-body.js'
import type {RenderService} from './render-service.js'
import {parseStreamBody} from './request-schema.js'
import {resolveCompositionPath} from './resolve-composition-path.js'
import {applyOriginPolicy} from './origin-policy.js'
import {sendOutput, sendOutputFile, sendPoster} from './serve-output.js'
import {answerStill} from './still-route.js'
import {pathRedactor, type Redact} from './redact-paths.js'
import {followJournal, lastEventId} from './follow-journal.js'
import {parseWebhookData, webhookTarget} from '../notify/index.js'

export interface CreateServerOptions {
  service: RenderService
  /** Real path of the directory compositions must live in. */
  root: string
  /** When set, every route but /health requires `Authorization: Bearer <token>`. */
  token?: string
  maxBodyBytes?: number
  /** Names besides the bound address that clients may put in the Host header. */
  allowedHosts?: readonly string[]
  /** Web page origins allowed to call the server (CORS); any other Origin is refused. */
  allowOrigins?: readonly string[]
  /** Signs webhook calls; a request naming a webhook is refused without it. */
  webhookSecret?: string
  /** Removes the server's own paths from what clients are sent (errors, events). */
  redact?: Redact
}

type Route = (req: PolkaRequest, res: ServerResponse) => Promise<void>

/** Runs an async route; a failure becomes the JSON error body (or ends a response already begun). */
function routeWith(redact: Redact) {
  return (handler: Route) => (req: PolkaRequest, res: ServerResponse) => {
    handler(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy()
      else sendError(res, error, {}, redact)
    })
  }
}

/**
 * The producer server's HTTP interface:
 *   GET    /health                      liveness, no token needed
 *   GET    /render/queue                {maxConcurrentRenders, activeRenders, queuedRenders}
 *   POST   /render/stream               JSON body -> server-sent events with ids (see StreamEvent)
 *   GET    /render/:requestId           where a request is: queued, rendering (progress), complete, failed, cancelled
 *   GET    /render/:requestId/events    its events again after Last-Event-ID, then live (resume a dropped stream; 204 after the final event)
 *   POST   /still                       JSON body -> one frame as an image (png, jpeg or webp)
 *   GET    /render/:requestId/output    the finished output (png-sequence: a JSON listing); Range, ETag, HEAD
 *   GET    /render/:requestId/output/:file  one file of a png-sequence; Range, ETag, HEAD
 *   GET    /render/:requestId/poster    the poster image, when the request asked for one; Range, ETag, HEAD
 *   DELETE /render/:requestId           cancels a queued or running render, or deletes its output
 *
 * Every request passes, in order: the Host check (421), the Origin policy (403; answers CORS
 * preflights for allowed origins), the token (401), and for bodies the JSON content type (415).
 */
export function createServer(options: CreateServerOptions): Server {
  const {service, root, token} = options
  const redact = options.redact ?? pathRedactor({[root]: '<root>'})
  const route = routeWith(redact)
  const app = polka({
    onNoMatch: (req, res) => sendError(res, new EngineError('NOT_FOUND', `no route for ${req.method} ${req.path}`), {}, redact),
  })

  app.use((req, res, next) => {
    try {
      assertHostAllowed(req, options.allowedHosts ?? [])
      if (applyOriginPolicy(req, res, options.allowOrigins ?? []) !== 'preflight-answered') next()
    } catch (error) {
      // The body of a refused request is never read: drain it so that the client gets the answer.
      req.resume()
      sendError(res, error, {}, redact)
    }
  })

  app.use((req, res, next) => {
    if (token === undefined || (req.method === 'GET' && req.path === '/health')) return next()
    try {
      assertAuthorized(req, token)
      next()
    } catch (error) {
      sendError(res, error, {'WWW-Authenticate': 'Bearer'}, redact)
    }
  })

  app.get('/health', (_req, res) => sendJson(res, 200, {status: 'ok'}))
  app.get('/render/queue', (_req, res) => sendJson(res, 200, service.status()))

  app.post(
    '/render/stream',
    route(async (req, res) => {
      const body = parseStreamBody(await readJsonBody(req, options.maxBodyBytes ?? MAX_BODY_BYTES))
      const composition = body.composition === undefined ? undefined : await resolveCompositionPath(root, body.composition)
      const webhook =
        body.webhookUrl === undefined
          ? undefined
          : webhookTarget({
              url: body.webhookUrl,
              secret: options.webhookSecret,
              urlField: 'body field "webhook.url"',
              secretHint: 'this server signs webhooks with its own secret and has none: its operator starts it with --webhook-secret <secret>',
              policy: service.webhookPolicy,
              code: 'INVALID_REQUEST',
            })
      if (webhook && body.webhookData !== undefined) webhook.data = parseWebhookData(body.webhookData, 'body field "webhook.data"', 'INVALID_REQUEST')
      // The client may have gone while its body was checked: then there is nobody to render for.
      if (req.socket.destroyed) return
      const {webhookData: _webhookData, ...request} = body
      const {requestId, journal} = service.submit({...request, composition, webhook})
      // A dropped connection leaves the render running (resume with GET /render/:id/events) unless the client asked otherwise.
      if (body.cancelOnDisconnect) {
        res.once('close', () => {
          if (service.isPending(requestId)) void service.cancel(requestId, 'the client disconnected (cancelOnDisconnect)')
        })
      }
      await followJournal(res, journal, 0, redact)
    }),
  )

  app.get(
    '/render/:requestId',
    route(async (req, res) => sendJson(res, 200, service.statusOf(req.params.requestId) ?? throwUnknown(service, req.params.requestId))),
  )
  app.get(
    '/render/:requestId/events',
    route(async (req, res) => {
      const journal = service.journal(req.params.requestId) ?? throwUnknown(service, req.params.requestId)
      await followJournal(res, journal, lastEventId(req, new URL(req.url ?? '/', 'http://server.invalid').searchParams, journal), redact)
    }),
  )

  app.post(
    '/still',
    route((req, res) => answerStill(req, res, {service, root, maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES})),
  )

  // Outputs answer HEAD too: a player asks for the size before its first range.
  const output = route(async (req, res) => sendOutput(req, res, findOutput(service, req.params.requestId)))
  const poster = route(async (req, res) => sendPoster(req, res, findOutput(service, req.params.requestId)))
  const outputFile = route(async (req, res) => sendOutputFile(req, res, findOutput(service, req.params.requestId), decodePathSegment(req.params.file)))
  app.get('/render/:requestId/output', output)
  app.head('/render/:requestId/output', output)
  app.get('/render/:requestId/poster', poster)
  app.head('/render/:requestId/poster', poster)
  app.get('/render/:requestId/output/:file', outputFile)
  app.head('/render/:requestId/output/:file', outputFile)

  app.delete(
    '/render/:requestId',
    route(async (req, res) => {
      const {requestId} = req.params
      if (await service.cancel(requestId)) return sendJson(res, 200, {requestId, status: 'cancelled'})
      if (await service.outputs.remove(requestId)) return sendJson(res, 200, {requestId, status: 'deleted'})
      throw unknownRequest(requestId)
    }),
  )

  return createHttpServer((req: IncomingMessage, res: ServerResponse) => app.handler(req, res))
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function unknownRequest(requestId: string): EngineError {
  return new EngineError('NOT_FOUND', `no render ${requestId} on this server (finished outputs are kept only for a while)`, {requestId})
}

function throwUnknown(service: RenderService, requestId: string): never {
  if (service.outputs.get(requestId)) throw new EngineError('NOT_FOUND', `render ${requestId} finished long ago: its status and events are gone, its output is still at /render/${requestId}/output`, {requestId})
  throw unknownRequest(requestId)
}

function findOutput(service: RenderService, requestId: string) {
  const output = service.outputs.get(requestId)
  if (output) return output
  if (service.isPending(requestId)) {
    throw new EngineError('OUTPUT_NOT_READY', `render ${requestId} has not finished yet; download it after its "complete" event`, {requestId})
  }
  throw unknownRequest(requestId)
}
