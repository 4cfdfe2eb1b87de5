import type {IncomingMessage, ServerResponse} from 'node:http'

/** Bodies already read, so that the signature check and the handler after it see the same bytes. */
const readBodies = new WeakMap<IncomingMessage, Promise<{body?: Buffer; size: number}>>()

/**
 * A request's body, or undefined when it passes `maxBytes`. Past the limit the rest is read and
 * dropped, not kept, so that the connection stays open for the error answer. A body is read from
 * the socket once; later calls (with the same or a lower limit) get the same bytes.
 */
export async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  let read = readBodies.get(request)
  if (!read) {
    read = readAll(request, maxBytes)
    readBodies.set(request, read)
  }
  const {body, size} = await read
  return body !== undefined && size <= maxBytes ? body : undefined
}

async function readAll(request: IncomingMessage, maxBytes: number): Promise<{body?: Buffer; size: number}> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size <= maxBytes) chunks.push(chunk as Buffer)
  }
  return {body: size > maxBytes ? undefined : Buffer.concat(chunks), size}
}

/** Answers with `body` as JSON; `headers` name its content type and any AWS headers. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {...headers, 'content-length': Buffer.byteLength(text)})
  response.end(text)
}
