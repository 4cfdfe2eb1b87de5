import {stat} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {hasCompanionFiles, listCompanionFiles} from '../encode/companion-files.js'
import type {FormatPlugin} from '../encode/format-plugin.js'

/**
 * Where the finished output is fetched. A format with companion files (HLS) is addressed by its
 * file name, so that the names it gives its companions resolve beside it: a player given
 * `/render/<id>/output/clip.m3u8` fetches `/render/<id>/output/clip_00000.ts`.
 */
export function outputUrl(requestId: string, outputPath: string, format: FormatPlugin): string {
  const base = `/render/${requestId}/output`
  return hasCompanionFiles(format) ? `${base}/${encodeURIComponent(basename(outputPath))}` : base
}

export function posterUrl(requestId: string): string {
  return `/render/${requestId}/poster`
}

/** One file served beside an output: its name (relative to the output's), size and address. */
export interface CompanionFileUrl {
  name: string
  bytes: number
  url: string
}

/**
 * The companion files of a finished output (an HLS playlist's segments), for the `complete`
 * event: a client downloads each of them, whatever the format calls them. Nothing for formats
 * that write one file or a frame directory.
 */
export async function companionFileUrls(requestId: string, outputPath: string, format: FormatPlugin): Promise<{companionFiles: CompanionFileUrl[]} | undefined> {
  if (!hasCompanionFiles(format)) return undefined
  const names = await listCompanionFiles(format, outputPath)
  const companionFiles = await Promise.all(
    names.map(async (name) => ({name, bytes: (await stat(join(dirname(outputPath), name))).size, url: `/render/${requestId}/output/${encodeURIComponent(name)}`})),
  )
  return {companionFiles}
}
