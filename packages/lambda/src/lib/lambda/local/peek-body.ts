import type {IncomingMessage} from 'node:http'

export type PeekedBody = {body: Buffer} | {problem: 'too-large' | 'no-length' | 'short'}

/**
 * Reads a request's whole body (its Content-Length bytes, at most `maxBytes`) and puts it back at
 * the front of the stream, so that the handler after the check (s3rver) reads the very bytes that
 * were checked. Done before the stream ends, as unshift requires.
 */
export async function peekBody(request: IncomingMessage, maxBytes: number): Promise<PeekedBody> {
  // Without either header HTTP/1.1 has no body; a chunked one has no length to check against.
  if (request.headers['content-length'] === undefined) return request.headers['transfer-encoding'] === undefined ? {body: Buffer.alloc(0)} : {problem: 'no-length'}
  const length = Number(request.headers['content-length'])
  if (!Number.isInteger(length) || length < 0) return {problem: 'no-length'}
  if (length > maxBytes) return {problem: 'too-large'}
  if (length === 0) return {body: Buffer.alloc(0)}
  const chunks: Buffer[] = []
  let size = 0
  await new Promise<void>((resolve, reject) => {
    const onReadable = () => {
      let chunk: Buffer | null
      while (size < length && (chunk = request.read() as Buffer | null) !== null) {
        chunks.push(chunk)
        size += chunk.length
      }
      if (size >= length) finish()
    }
    const onEnd = () => finish()
    const finish = () => {
      request.off('readable', onReadable)
      request.off('end', onEnd)
      request.off('error', reject)
      resolve()
    }
    request.on('readable', onReadable)
    request.on('end', onEnd)
    request.on('error', reject)
  })
  if (size !== length) return {problem: 'short'}
  const body = Buffer.concat(chunks)
  request.unshift(body)
  return {body}
}
