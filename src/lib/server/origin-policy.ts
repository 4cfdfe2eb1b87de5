import type {IncomingMessage, ServerResponse} from 'node:http'
import {EngineError} from '../errors/engine-error.js'

const ALLOWED_METHODS = 'GET, POST, DELETE'
const ALLOWED_HEADERS = 'Authorization, Content-Type'
const PREFLIGHT_MAX_AGE_SECONDS = '600'

/** A `--allow-origin` value as browsers send it in `Origin` (`scheme://host[:port]`), or undefined when it is not one. */
export function normalizeOrigin(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    return undefined
  }
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === ''
  return bare && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined
}

export type OriginDecision = 'no-origin' | 'allowed' | 'preflight-answered'

/**
 * Decides a request by its `Origin` header. Browsers send one with every cross-origin request and
 * every POST, so a request carrying an origin comes from a web page: it is refused (403) unless the
 * operator allowed that page's origin. For an allowed origin the CORS headers are set, and a
 * preflight (`OPTIONS`) is answered here, before the token check (browsers send no credentials
 * with it). Requests without an Origin (curl, the engine's own client) pass through.
 */
export function applyOriginPolicy(req: IncomingMessage, res: ServerResponse, allowOrigins: readonly string[]): OriginDecision {
  const origin = req.headers.origin
  if (origin === undefined) return 'no-origin'
  res.setHeader('Vary', 'Origin')
  if (!allowOrigins.includes(origin)) {
    // Only an http(s) origin can be allowed: "null" (a sandboxed frame, a file:// page) never can.
    const fix =
      normalizeOrigin(origin) === undefined
        ? 'such a page (a sandboxed frame, a file:// page) cannot be allowed; serve it from an http(s) origin and start engine serve with --allow-origin <that origin>'
        : `start engine serve with --allow-origin ${origin} to let that page call the server`
    throw new EngineError('ORIGIN_NOT_ALLOWED', `requests from web pages are refused: origin "${origin}" is not allowed; ${fix}`, {origin})
  }
  res.setHeader('Access-Control-Allow-Origin', origin)
  res.setHeader('Access-Control-Expose-Headers', 'Content-Disposition')
  if (req.method !== 'OPTIONS') return 'allowed'
  res.writeHead(204, {
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
  })
  res.end()
  return 'preflight-answered'
}
