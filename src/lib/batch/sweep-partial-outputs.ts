import {readdir, rm} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {partialOwner} from '../encode/partial-path.js'

/**
 * Removes what killed renders of a batch's outputs left beside them (their `.partial` files and
 * folders), reading each output folder once: O(rows) for the whole batch. Partials of files that
 * are not outputs of this batch may belong to other renders still running: they stay.
 */
export async function sweepPartialOutputs(outputs: ReadonlyMap<string, unknown>): Promise<string[]> {
  const folders = new Set<string>()
  for (const output of outputs.keys()) folders.add(dirname(output))
  const removed: string[] = []
  for (const folder of folders) {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      const owner = partialOwner(name)
      if (owner === undefined) continue
      const output = join(folder, owner)
      if (outputs.has(output)) {
        await rm(join(folder, name), {recursive: true, force: true})
        removed.push(join(folder, name))
      }
    }
  }
  return removed
}

