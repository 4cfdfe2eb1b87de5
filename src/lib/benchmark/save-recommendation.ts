import {readFile, writeFile} from 'node:fs/promises'
import {basename, extname, join} from 'node:path'
import {loadConfig} from '../config/load-config.js'
import {EngineError} from '../errors/engine-error.js'
import {parseRenderOptions} from '../plan/render-options.js'

export const SAVED_CONFIG_FILE = 'engine.config.json'

export interface SaveTarget {
  path: string
  /** package.json keeps engine's options under its "engine" key. */
  packageKey?: 'engine'
}

/**
 * Where `--save` writes: the config file engine would read from `cwd` when it is JSON (its other
 * keys are kept), else a new engine.config.json in `cwd`. A JavaScript or YAML config cannot be
 * rewritten faithfully, so it is refused before anything is measured.
 */
export async function findSaveTarget(cwd: string = process.cwd(), trusted = false): Promise<SaveTarget> {
  const {filepath} = await loadConfig(cwd, {trusted})
  if (filepath === undefined) return {path: join(cwd, SAVED_CONFIG_FILE)}
  if (basename(filepath) === 'package.json') return {path: filepath, packageKey: 'engine'}
  const extension = extname(filepath)
  if (extension === '.json' || (extension === '' && (await isJsonFile(filepath)))) return {path: filepath}
  throw new EngineError(
    'INVALID_CONFIG',
    `--save: the configuration in use is ${filepath}, which is ${extension === '' ? 'YAML' : 'JavaScript'}; engine benchmark does not rewrite code. ` +
      `Set "workers" in it yourself, or move its settings to ${SAVED_CONFIG_FILE}`,
    {file: filepath},
  )
}

/** Merges `values` into the target's options, keeping every other key and the file's indentation. */
export async function saveToConfig(target: SaveTarget, values: {workers: number}): Promise<void> {
  const text = await readFile(target.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '{}\n'
    throw error
  })
  const document = JSON.parse(text) as Record<string, unknown>
  const options = {...((target.packageKey ? document[target.packageKey] : document) as Record<string, unknown> | undefined), ...values}
  parseRenderOptions(options, (key) => `${target.path}: key "${key}"`)
  const updated = target.packageKey ? {...document, [target.packageKey]: options} : options
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? '  '
  await writeFile(target.path, JSON.stringify(updated, null, indent) + '\n')
}

async function isJsonFile(path: string): Promise<boolean> {
  try {
    JSON.parse(await readFile(path, 'utf8'))
    return true
  } catch {
    return false
  }
}
