import {createWriteStream} from 'node:fs'
import {mkdir, rename, rm} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import type {ReadableStream as WebReadableStream} from 'node:stream/web'
import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'
import {serverFetch, type ServerConnection} from './server-api.js'

const listingSchema = z.object({
  files: z.array(z.object({name: z.string().regex(/^[^/\\]+$/).refine((name) => name !== '..' && name !== '.'), url: z.string()})),
})

/** Streams a response body into `path`, through a temporary name so that a broken download leaves nothing. */
async function saveResponse(response: Response, path: string): Promise<void> {
  if (!response.body) throw new EngineError('SERVER_UNAVAILABLE', `the producer server sent no content for ${path}`)
  await mkdir(dirname(path), {recursive: true})
  const partial = `${path}.partial-${process.pid}`
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(partial))
    await rename(partial, path)
  } catch (error) {
    await rm(partial, {force: true})
    throw error
  }
}

/**
 * Downloads a finished render to `destination`: a file, or for a png-sequence (served as a JSON
 * listing) a directory that receives every listed file.
 */
export async function downloadOutput(connection: ServerConnection, outputUrl: string, destination: string, signal?: AbortSignal): Promise<void> {
  const response = await serverFetch(connection, outputUrl, {signal})
  if (!response.headers.get('content-type')?.startsWith('application/json')) return saveResponse(response, destination)
  const listing = listingSchema.parse(await response.json())
  await mkdir(destination, {recursive: true})
  for (const file of listing.files) {
    await saveResponse(await serverFetch(connection, file.url, {signal}), join(destination, file.name))
  }
}
