import {readdir, stat} from 'node:fs/promises'
import {basename, dirname, extname, join, resolve} from 'node:path'
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

/** Size of the output: a file's bytes, or the sum over a frame directory. */
export async function outputBytes(path: string): Promise<number> {
  const info = await stat(path)
  if (!info.isDirectory()) return info.size
  let total = 0
  for (const entry of await readdir(path, {withFileTypes: true})) {
    if (entry.isFile()) total += (await stat(join(path, entry.name))).size
  }
  return total
}
