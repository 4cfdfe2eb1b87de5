import {randomUUID} from 'node:crypto'
import {readdir, rm} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'

/**
 * A hidden, unique name next to `outputPath` for writing the result before it is complete. Being in
 * the same directory keeps the final rename on one filesystem, hence atomic.
 */
export function partialPath(outputPath: string, extension = ''): string {
  return join(dirname(outputPath), `.${basename(outputPath)}.${randomUUID().slice(0, 8)}.partial${extension}`)
}

/** The name of the output a name `partialPath` could have given is for (`.<name>.<8 hex>.partial…`), if it is one. */
export function partialOwner(name: string): string | undefined {
  return /^\.(.+)\.[0-9a-f]{8}\.partial/.exec(name)?.[1]
}

/** True for a name `partialPath` could have given `outputPath` (left behind by a killed render). */
export function isPartialOf(name: string, outputPath: string): boolean {
  return partialOwner(name) === basename(outputPath)
}

/**
 * Deletes what a killed render of `outputPath` left beside it (its partial files or directories);
 * returns their paths. Partials of other outputs may belong to renders still running: they stay.
 */
export async function removePartialsOf(outputPath: string): Promise<string[]> {
  const names = await readdir(dirname(outputPath)).catch(() => [] as string[])
  const leftovers = names.filter((name) => isPartialOf(name, outputPath)).map((name) => join(dirname(outputPath), name))
  await Promise.all(leftovers.map((path) => rm(path, {recursive: true, force: true})))
  return leftovers
}
