import {readdir, stat} from 'node:fs/promises'
import {basename, dirname, extname, join, resolve} from 'node:path'
import {listCompanionFiles} from '../encode/companion-files.js'
import {outputExtension, type FormatPlugin} from '../encode/format-plugin.js'

/**
 * `renders/<name>.<ext>` under the working directory, where <name> is the composition file's
 * name; a file called index.html is named after its folder, since "index" says nothing.
 */
export function defaultOutputPath(compositionPath: string, format: FormatPlugin, cwd: string = process.cwd()): string {
  const file = basename(compositionPath, extname(compositionPath))
  const name = file === 'index' ? basename(dirname(resolve(compositionPath))) || file : file
  return join(cwd, 'renders', name + (outputExtension(format) ?? ''))
}

/** Size of the output: a file's bytes with its companion files' (an HLS playlist's segments), or the sum over a frame directory. */
export async function outputBytes(path: string, format?: FormatPlugin): Promise<number> {
  const info = await stat(path)
  if (!info.isDirectory()) {
    const companions = format ? await listCompanionFiles(format, path) : []
    const sizes = await Promise.all(companions.map(async (name) => (await stat(join(dirname(path), name))).size))
    return sizes.reduce((sum, size) => sum + size, info.size)
  }
  let total = 0
  for (const entry of await readdir(path, {withFileTypes: true})) {
    if (entry.isFile()) total += (await stat(join(path, entry.name))).size
  }
  return total
}
