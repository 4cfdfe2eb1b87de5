import {mkdir, readdir, rename, rm, stat} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {z} from 'zod'
import type {FrameFilesFormat} from '../encode/format-plugin.js'
import {getFormat} from '../encode/format-registry.js'
import {partialPath} from '../encode/partial-path.js'
import {countOutputFrames} from '../encode/count-output-frames.js'
import {resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import {EngineError} from '../errors/engine-error.js'
import {serverFetch, type ServerConnection} from './server-api.js'
import {makeDirectory} from '../files/make-directory.js'
import {hasCompanionFiles} from '../encode/companion-files.js'
import {downloadWithCompanions} from './download-companions.js'
import {mismatch, saveResponse} from './save-response.js'

const listingSchema = z.object({
  files: z.array(z.object({name: z.string().regex(/^[^/\\]+$/).refine((name) => name !== '..' && name !== '.'), url: z.string()})),
})

/** What the server's `complete` event promised; the download must match it before it is kept. */
export interface ExpectedOutput {
  format: string
  bytes: number
  totalFrames: number
  /** The files beside the output (an HLS playlist's segments), for formats that have them. */
  companionFiles?: unknown
}

export interface DownloadOptions {
  /** The render's announced result; without it (a poster image) the file is saved as sent. */
  expected?: ExpectedOutput
  signal?: AbortSignal
}

/**
 * Downloads a finished render to `destination`: a file, or for a png-sequence (served as a JSON
 * listing) a directory of every listed file. It is written under a hidden partial name and checked
 * against the `complete` event (byte count; frames counted with ffprobe, or frame files) before it
 * is moved into place, so a truncated or substituted download leaves nothing at `destination`.
 */
export async function downloadOutput(connection: ServerConnection, outputUrl: string, destination: string, options: DownloadOptions): Promise<void> {
  const {expected, signal} = options
  await makeDirectory(dirname(destination))
  const partial = partialPath(destination)
  try {
    const response = await serverFetch(connection, outputUrl, {signal})
    const format = expected && getFormat(expected.format)
    if (!expected || !format) {
      await saveResponse(response, partial)
      await rename(partial, destination)
    } else if (format.worker === 'frame-files') {
      await downloadListing(connection, response, partial, signal)
      await checkFrameDirectory(partial, format, expected, destination)
      await placeDirectory(partial, destination)
    } else if (hasCompanionFiles(format)) {
      await downloadWithCompanions({connection, response, format, expected, destination, signal})
    } else {
      await saveResponse(response, partial)
      const {size} = await stat(partial)
      if (size !== expected.bytes) throw mismatch('bytes', size, expected.bytes, destination)
      const frames = await countOutputFrames(format, async () => (await resolveFfmpeg()).ffprobePath, partial)
      if (frames !== undefined && frames !== expected.totalFrames) throw mismatch('frames', frames, expected.totalFrames, destination)
      await rename(partial, destination)
    }
  } finally {
    await rm(partial, {recursive: true, force: true})
  }
}

async function downloadListing(connection: ServerConnection, response: Response, directory: string, signal?: AbortSignal): Promise<void> {
  if (!response.headers.get('content-type')?.startsWith('application/json')) {
    throw new EngineError('SERVER_RESPONSE_INVALID', 'the producer server sent a file where a png-sequence listing was expected')
  }
  const listing = listingSchema.parse(await response.json())
  await mkdir(directory)
  for (const file of listing.files) await saveResponse(await serverFetch(connection, file.url, {signal}), join(directory, file.name))
}

async function checkFrameDirectory(directory: string, format: FrameFilesFormat, expected: ExpectedOutput, destination: string): Promise<void> {
  const names = await readdir(directory)
  let bytes = 0
  for (const name of names) bytes += (await stat(join(directory, name))).size
  if (bytes !== expected.bytes) throw mismatch('bytes', bytes, expected.bytes, destination)
  const frames = names.filter((name) => format.frameFilePattern.test(name)).length
  if (frames !== expected.totalFrames) throw mismatch('frame files', frames, expected.totalFrames, destination)
}

/** A new directory is renamed into place; an existing one receives the files (its other files stay). */
async function placeDirectory(partial: string, destination: string): Promise<void> {
  const existing = await stat(destination).catch(() => undefined)
  if (!existing) return rename(partial, destination)
  if (!existing.isDirectory()) {
    throw new EngineError('INVALID_FLAG', `--output: ${destination} is a file, but png-sequence writes a directory of frames; give a directory path`, {
      output: destination,
    })
  }
  for (const name of await readdir(partial)) await rename(join(partial, name), join(destination, name))
}
