import {readdir, stat} from 'node:fs/promises'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {basename, dirname, join} from 'node:path'
import {listCompanionFiles} from '../encode/companion-files.js'
import {listFormats} from '../encode/format-registry.js'
import {EngineError} from '../errors/engine-error.js'
import {sendFile} from '../files/send-file.js'
import {sendJson} from './http-errors.js'
import type {StoredOutput} from './output-store.js'

export interface OutputListing {
  requestId: string
  format: string
  files: {name: string; bytes: number; url: string}[]
}

/**
 * A file output is sent as is. A directory output (png-sequence) is described by a JSON listing
 * whose entries link to `GET /render/:requestId/output/:file`; archiving thousands of PNGs that
 * are already compressed would only cost time.
 */
export async function sendOutput(req: IncomingMessage, res: ServerResponse, output: StoredOutput): Promise<void> {
  if (!output.isDirectory) return sendOutputBytes(req, res, output.path, formatMimeType(output.format))
  const files: OutputListing['files'] = []
  for (const entry of (await readdir(output.path, {withFileTypes: true})).filter((e) => e.isFile()).sort((a, b) => a.name.localeCompare(b.name))) {
    const {size} = await stat(join(output.path, entry.name))
    files.push({name: entry.name, bytes: size, url: `/render/${output.requestId}/output/${encodeURIComponent(entry.name)}`})
  }
  const listing: OutputListing = {requestId: output.requestId, format: output.format, files}
  sendJson(res, 200, listing)
}

/**
 * One file of a directory output, or of a file output with companions (an HLS playlist under its
 * own name, and its segments, which the playlist names relative to it); names are matched against
 * what is there, never joined blindly.
 */
export async function sendOutputFile(req: IncomingMessage, res: ServerResponse, output: StoredOutput, name: string): Promise<void> {
  const notFound = () => new EngineError('NOT_FOUND', `render ${output.requestId} has no output file "${name}"`, {requestId: output.requestId, file: name})
  if (!output.isDirectory) {
    const format = listFormats().find((plugin) => plugin.name === output.format)
    if (format && name === basename(output.path)) return sendOutputBytes(req, res, output.path, format.mimeType)
    if (!format || !(await listCompanionFiles(format, output.path)).includes(name)) throw notFound()
    return sendOutputBytes(req, res, join(dirname(output.path), name))
  }
  const names = new Set((await readdir(output.path, {withFileTypes: true})).filter((e) => e.isFile()).map((e) => e.name))
  if (!names.has(name)) throw notFound()
  await sendOutputBytes(req, res, join(output.path, name), formatMimeType(output.format))
}

/** The poster image of a render that asked for one. */
export async function sendPoster(req: IncomingMessage, res: ServerResponse, output: StoredOutput): Promise<void> {
  if (!output.poster) throw new EngineError('NOT_FOUND', `render ${output.requestId} has no poster (ask for one with "poster": <seconds> in the request)`, {requestId: output.requestId})
  await sendOutputBytes(req, res, output.poster)
}

/** The media type the output's format declares, if it does (a plugin's `.mkv` is not in the extension table). */
function formatMimeType(format: string): string | undefined {
  return listFormats().find((plugin) => plugin.name === format)?.mimeType
}

/**
 * An output's bytes with Range (a `<video>` seeks), ETag and Last-Modified. `private`: a shared
 * cache must not keep what a token guarded.
 */
async function sendOutputBytes(req: IncomingMessage, res: ServerResponse, path: string, mimeType?: string): Promise<void> {
  if (await sendFile(req, res, path, {cacheControl: 'private, no-cache', downloadName: basename(path), contentType: mimeType})) return
  throw new EngineError('NOT_FOUND', `the output ${basename(path)} is gone (finished outputs are kept only for a while)`)
}
