import type {ServerResponse} from 'node:http'
import {toEngineError, type ErrorCode} from '../errors/engine-error.js'

/** The one place where error codes become HTTP statuses; anything unlisted is a 500. */
const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 400,
  INVALID_FLAG: 400,
  INVALID_VARIABLES: 400,
  STRICT_VARIABLES: 400,
  UNAUTHORIZED: 401,
  PATH_OUTSIDE_ROOT: 403,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  COMPOSITION_NOT_FOUND: 404,
  OUTPUT_NOT_READY: 409,
  PAYLOAD_TOO_LARGE: 413,
  LIMIT_EXCEEDED: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  MISDIRECTED_REQUEST: 421,
  COMPOSITION_INVALID: 422,
  QUEUE_FULL: 429,
}

export function httpStatus(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 500
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers})
  res.end(text)
}

/** `{error: {code, message, details}}` with the status of the code, its text passed through `redact`. */
export function sendError(res: ServerResponse, error: unknown, headers: Record<string, string> = {}, redact: (text: string) => string = (text) => text): void {
  const engineError = toEngineError(error)
  const {code, message, details} = engineError.toJSON()
  const text = redact(JSON.stringify({error: {code, message, details: details ?? null}}))
  res.writeHead(httpStatus(code), {'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers})
  res.end(text)
}
