import {mkdir, stat} from 'node:fs/promises'
import {dirname, resolve} from 'node:path'

/**
 * `mkdir -p` that always ends: the missing folders are made one by one from the nearest one that
 * exists, and the first refusal is thrown. Node's own recursive mkdir never settles where a
 * pseudo file system refuses a folder (`-o /proc/nope/x.mp4` spun for ever and ignored SIGTERM).
 */
export async function makeDirectory(path: string): Promise<void> {
  const missing: string[] = []
  for (let current = resolve(path); ; current = dirname(current)) {
    const found = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (found) {
      if (!found.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), {code: 'ENOTDIR', path: current})
      break
    }
    missing.unshift(current)
    if (dirname(current) === current) break
  }
  for (const folder of missing) {
    await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
    })
  }
}
