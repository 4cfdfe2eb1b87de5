import {readdir, rm} from 'node:fs/promises'
import {basename, dirname, extname, join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {moveFile} from '../files/move-file.js'
import type {FormatPlugin, ImageStreamFormat, VideoSegmentFormat} from './format-plugin.js'

/** The output's file name without its extension: companions are named `<stem><rest>`. */
export function outputStem(outputPath: string): string {
  const name = basename(outputPath)
  return name.slice(0, name.length - extname(name).length)
}

/** Whether a format's output is a file with files beside it (an HLS playlist and its segments). */
export function hasCompanionFiles(format: FormatPlugin): format is VideoSegmentFormat | ImageStreamFormat {
  return companionPattern(format) !== undefined
}

function companionPattern(format: FormatPlugin): RegExp | undefined {
  return format.worker === 'frame-files' ? undefined : format.companionFilePattern
}

/** Whether `name` is a companion file of the output named `stem` (an HLS segment of that playlist). */
export function isCompanionOf(format: FormatPlugin, stem: string, name: string): boolean {
  const pattern = companionPattern(format)
  return pattern !== undefined && name.startsWith(stem) && pattern.test(name.slice(stem.length))
}

/**
 * The companion files beside an output (for serving, uploading and checking it), sorted by name;
 * none for formats that write one file.
 */
export async function listCompanionFiles(format: FormatPlugin, outputPath: string): Promise<string[]> {
  if (!companionPattern(format)) return []
  const stem = outputStem(outputPath)
  const names = await readdir(dirname(outputPath)).catch(() => [] as string[])
  return names.filter((name) => isCompanionOf(format, stem, name)).sort()
}

/**
 * Moves what the plugin wrote into `stagingDir` next to the output, after checking every name is
 * one of the output's companions (a plugin must not overwrite other files there). Returns the paths
 * published, for the caller to remove when the output itself does not appear.
 */
export async function publishCompanionFiles(format: FormatPlugin, stagingDir: string, outputPath: string): Promise<string[]> {
  const names = (await readdir(stagingDir)).sort()
  if (names.length === 0) return []
  const stem = outputStem(outputPath)
  const foreign = names.filter((name) => !isCompanionOf(format, stem, name))
  if (foreign.length > 0) {
    throw new EngineError(
      'ENCODE_FAILED',
      `the ${format.name} format wrote ${foreign.map((name) => `"${name}"`).join(', ')} beside ${outputPath}, which are not companion files of it (names must be "${stem}" followed by what its companionFilePattern matches)`,
      {format: format.name, files: foreign},
    )
  }
  const directory = dirname(outputPath)
  const published: string[] = []
  try {
    for (const name of names) {
      await moveFile(join(stagingDir, name), join(directory, name))
      published.push(join(directory, name))
    }
  } catch (error) {
    await removeFiles(published)
    throw error
  }
  return published
}

/** Removes companions of an earlier, longer render of the output that this render did not write. */
export async function removeStaleCompanions(format: FormatPlugin, outputPath: string, published: readonly string[]): Promise<void> {
  const written = new Set(published.map((path) => basename(path)))
  const stale = (await listCompanionFiles(format, outputPath)).filter((name) => !written.has(name))
  await removeFiles(stale.map((name) => join(dirname(outputPath), name)))
}

export async function removeFiles(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, {force: true})))
}
