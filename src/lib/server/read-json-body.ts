import type {IncomingMessage} from 'node:http'
import {EngineError} from '../errors/engine-error.js'
import {jsonDepthExceeds, MAX_JSON_DEPTH} from './json-depth.js'

/** Largest request body accepted: room for an inline composition with inlined styles and scripts. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024

function tooLarge(limit: number): EngineError {
  return new EngineError(
    'PAYLOAD_TOO_LARGE',
    `the request body is larger than ${limit} bytes; reference media by URL instead of inlining it, or send a composition path`,
    {limit},
  )
}

/**
 * Throws UNSUPPORTED_MEDIA_TYPE unless the body is declared `application/json`. A web page can
 * post `text/plain` (a form, or fetch without a preflight) to any address; only JSON needs the
 * CORS preflight that the origin policy answers, so this check is what keeps pages out.
 */
function assertJsonContentType(req: IncomingMessage): void {
  const declared = req.headers['content-type'] ?? ''
  if (declared.split(';')[0].trim().toLowerCase() === 'application/json') return
  req.resume()
  throw new EngineError(
    'UNSUPPORTED_MEDIA_TYPE',
    `the request body must be JSON sent with "Content-Type: application/json" (got ${declared === '' ? 'no Content-Type' : `"${declared}"`})`,
    {contentType: declared || null},
  )
}

/**
 * Reads and parses a JSON body of at most `limit` bytes, declared as `application/json`. An oversized body is refused from its
 * Content-Length when it has one, otherwise as soon as the limit is crossed; the rest is drained
 * so that the client still receives the 413.
 */
export async function readJsonBody(req: IncomingMessage, limit: number = MAX_BODY_BYTES): Promise<unknown> {
  assertJsonContentType(req)
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) {
    req.resume()
    throw tooLarge(limit)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) {
      req.resume()
      throw tooLarge(limit)
    }
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (jsonDepthExceeds(text)) {
    throw new EngineError('INVALID_REQUEST', `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} deep, the limit; flatten the values`, {limit: MAX_JSON_DEPTH})
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new EngineError('INVALID_REQUEST', `the request body is not valid JSON (${(error as Error).message})`)
  }
}
