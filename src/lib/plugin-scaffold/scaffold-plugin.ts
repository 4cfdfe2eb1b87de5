import {mkdir, readdir, writeFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {pluginFiles} from './plugin-files.js'

const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/

export interface ScaffoldedPlugin {
  directory: string
  packageName: string
  formatName: string
  files: string[]
}

/**
 * Writes a new format plugin package into `directory` (default `./<name without scope>`), which
 * must not exist or be empty. The format is named after the package without its scope and an
 * `engine-plugin-` prefix (`engine-plugin-mkv2` adds `--format mkv2`).
 */
export async function scaffoldPlugin(packageName: string, options: {directory?: string; cwd: string; engine: {name: string; version: string}}): Promise<ScaffoldedPlugin> {
  if (!PACKAGE_NAME.test(packageName) || packageName.length > 214) {
    throw new EngineError('INVALID_FLAG', `plugins new: "${packageName}" is not an npm package name; use lowercase letters, digits and dashes, such as engine-plugin-mkv2`, {name: packageName})
  }
  const bare = packageName.replace(/^@[^/]+\//, '')
  const formatName = bare.replace(/^engine-plugin-/, '').replace(/[^a-z0-9-]/g, '-').replace(/^-+/, '')
  if (formatName === '') throw new EngineError('INVALID_FLAG', `plugins new: "${packageName}" leaves no format name; name it engine-plugin-<format>`, {name: packageName})
  const directory = resolve(options.cwd, options.directory ?? bare)
  const existing = await readdir(directory).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error)))
  if (existing.length > 0) {
    throw new EngineError('INVALID_FLAG', `plugins new: ${directory} is not empty; give another name or --dir`, {directory})
  }
  await mkdir(directory, {recursive: true})
  const files = pluginFiles(packageName, formatName, options.engine)
  for (const [name, text] of Object.entries(files)) await writeFile(join(directory, name), text, {flag: 'wx'})
  return {directory, packageName, formatName, files: Object.keys(files)}
}
