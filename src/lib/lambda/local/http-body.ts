import type {IncomingMessage, ServerResponse} from 'node:http'

/**
 * A request's body, or undefined when it passes `maxBytes`. Past the limit the rest is read and
 * dropped, not kept, so that the connection stays open for the error answer.
 */
export async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size <= maxBytes) chunks.push(chunk as Buffer)
  }
  return size > maxBytes ? undefined : Buffer.concat(chunks)
}

/** Answers with `body` as JSON; `headers` name its content type and any AWS headers. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {...headers, 'content-length': Buffer.byteLength(text)})
  response.end(text)
}
