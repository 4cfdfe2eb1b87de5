import {createWriteStream} from 'node:fs'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import type {ReadableStream as WebReadableStream} from 'node:stream/web'
import {EngineError} from '../errors/engine-error.js'

/** Streams a response's body to `path`. */
export async function saveResponse(response: Response, path: string): Promise<void> {
  if (!response.body) throw new EngineError('SERVER_UNAVAILABLE', `the producer server sent no content for ${path}`)
  await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(path))
}

/** A download that does not match what the server announced. */
export function mismatch(what: string, got: number, expected: number, destination: string): EngineError {
  return new EngineError(
    'SERVER_RESPONSE_INVALID',
    `the download of ${destination} has ${got} ${what}, but the server announced ${expected}; nothing was kept (render again)`,
    {output: destination, what, got, expected},
  )
}
