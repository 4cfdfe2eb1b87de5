import type {IncomingMessage} from 'node:http'
import {EngineError} from '../errors/engine-error.js'

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
 * Reads and parses a JSON body of at most `limit` bytes. An oversized body is refused from its
 * Content-Length when it has one, otherwise as soon as the limit is crossed; the rest is drained
 * so that the client still receives the 413.
 */
export async function readJsonBody(req: IncomingMessage, limit: number = MAX_BODY_BYTES): Promise<unknown> {
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
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new EngineError('INVALID_REQUEST', `the request body is not valid JSON (${(error as Error).message})`)
  }
}
