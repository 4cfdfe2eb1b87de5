import {rename, rm, stat} from 'node:fs/promises'
import {basename, join} from 'node:path'
import {z} from 'zod'
import {hasCompanionFiles, isCompanionOf, outputStem, publishCompanionFiles, removeFiles, removeStaleCompanions} from '../encode/companion-files.js'
import {countOutputFrames} from '../encode/count-output-frames.js'
import type {FormatPlugin, ImageStreamFormat, VideoSegmentFormat} from '../encode/format-plugin.js'
import {partialPath} from '../encode/partial-path.js'
import {resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import {EngineError} from '../errors/engine-error.js'
import {makeTempDirectory} from '../files/temp-directory.js'
import {outputNameSchema} from '../server/request-schema.js'
import {mismatch, saveResponse} from './save-response.js'
import {serverFetch, type ServerConnection} from './server-api.js'

const companionFilesSchema = z.array(z.object({name: z.string().regex(/^[^/\\]+$/), bytes: z.number().int().min(0), url: z.string()}))

/**
 * For a format with companion files, the server names its output as the local one is named: the
 * output file refers to its companions by name (a playlist to `<stem>_00000.ts`), so they are
 * kept under the names the server gave them. Nothing for other formats.
 */
export function companionOutputName(format: FormatPlugin, destination: string): {outputName: string} | undefined {
  if (!hasCompanionFiles(format)) return undefined
  const outputName = outputStem(destination)
  if (!outputNameSchema.safeParse(outputName).success) {
    throw new EngineError(
      'INVALID_FLAG',
      `--output: "${basename(destination)}" with --server: a ${format.name} output's files are named after it on the server, which takes 1-100 letters, digits, ".", "_" or "-" before ${format.extension}; rename the output (e.g. clip${format.extension})`,
      {output: destination, format: format.name},
    )
  }
  return {outputName}
}

export interface CompanionDownload {
  connection: ServerConnection
  /** The response to the output's own URL. */
  response: Response
  format: VideoSegmentFormat | ImageStreamFormat
  /** The `complete` event: the whole output's bytes and frames, and the list of files beside it. */
  expected: {bytes: number; totalFrames: number; companionFiles?: unknown}
  destination: string
  signal?: AbortSignal
}

/**
 * Downloads an output with companion files: the output under a partial name beside the
 * destination, each companion (only names that are companions of the destination) into a private
 * directory, each size checked against the announcement. The companions are then put beside the
 * destination, the frames counted (a playlist reads its segments by relative name), the output
 * renamed into place, and companions of an earlier, longer output of that name removed, as a local
 * render does. On failure nothing of it is left at the destination.
 */
export async function downloadWithCompanions(download: CompanionDownload): Promise<void> {
  const {connection, format, expected, destination, signal} = download
  const listed = companionFilesSchema.safeParse(expected.companionFiles)
  if (!listed.success) throw invalid(`the producer server sent no valid list of the files beside ${basename(destination)}; nothing was kept`)
  const stem = outputStem(destination)
  const foreign = listed.data.filter((file) => !isCompanionOf(format, stem, file.name))
  if (foreign.length > 0) {
    throw invalid(`the producer server listed files beside ${basename(destination)} that are not its ${format.name} companions (${foreign.map((file) => JSON.stringify(file.name.slice(0, 80))).join(', ')}); nothing was kept`)
  }
  const partial = partialPath(destination, format.extension)
  const staging = await makeTempDirectory('download')
  let published: string[] = []
  try {
    await saveResponse(download.response, partial)
    let bytes = (await stat(partial)).size
    for (const file of listed.data) {
      const path = join(staging, file.name)
      await saveResponse(await serverFetch(connection, file.url, {signal}), path)
      const {size} = await stat(path)
      if (size !== file.bytes) throw mismatch('bytes', size, file.bytes, join(destination, '..', file.name))
      bytes += size
    }
    if (bytes !== expected.bytes) throw mismatch('bytes (with the files beside it)', bytes, expected.bytes, destination)
    published = await publishCompanionFiles(format, staging, destination)
    const frames = await countOutputFrames(format, async () => (await resolveFfmpeg()).ffprobePath, partial)
    if (frames !== undefined && frames !== expected.totalFrames) throw mismatch('frames', frames, expected.totalFrames, destination)
    await rename(partial, destination)
    await removeStaleCompanions(format, destination, published)
  } catch (error) {
    await rm(partial, {force: true})
    // Published companions replaced an earlier output's files of the same names: that output is gone too.
    if (published.length > 0) await removeFiles([...published, destination])
    throw error
  } finally {
    await rm(staging, {recursive: true, force: true})
  }
}

function invalid(message: string): EngineError {
  return new EngineError('SERVER_RESPONSE_INVALID', message)
}
