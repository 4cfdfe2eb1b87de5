import {cosmiconfig} from 'cosmiconfig'
import {EngineError} from '../errors/engine-error.js'
import {parseRenderOptions, type RenderOptionsInput} from '../plan/render-options.js'

export const CONFIG_SEARCH_PLACES = [
  'package.json',
  '.enginerc',
  '.enginerc.json',
  'engine.config.json',
  'engine.config.js',
  'engine.config.mjs',
]

export interface LoadedConfig {
  /** File the values came from, or undefined when no config file was found. */
  filepath?: string
  options: RenderOptionsInput
}

/**
 * Finds the nearest engine configuration (searching upwards from `cwd`) and validates it. An
 * invalid file is an error naming the file and the key, never silently ignored.
 */
export async function loadConfig(cwd: string = process.cwd()): Promise<LoadedConfig> {
  const explorer = cosmiconfig('engine', {searchPlaces: CONFIG_SEARCH_PLACES, searchStrategy: 'project'})
  let found
  try {
    found = await explorer.search(cwd)
  } catch (error) {
    throw new EngineError('INVALID_CONFIG', `could not read the engine configuration: ${(error as Error).message}`, {
      cwd,
    })
  }
  if (!found || found.isEmpty) return {options: {}}
  const file = found.filepath
  try {
    return {filepath: file, options: parseRenderOptions(found.config, (key) => `${file}: key "${key}"`)}
  } catch (error) {
    if (error instanceof EngineError) {
      throw new EngineError('INVALID_CONFIG', error.message, {file, ...(error.details as object)})
    }
    throw error
  }
}
