import {resolve} from 'node:path'
import {cosmiconfig} from 'cosmiconfig'
import {openRowSource} from '../batch/rows/read-rows.js'
import {isExecutableFile} from '../browser/resolve-browser.js'
import {getFormat} from '../encode/format-registry.js'
import {EngineError} from '../errors/engine-error.js'
import {parseFps} from '../plan/fps.js'
import {parseRenderOptions, type RenderOptionsInput} from '../plan/render-options.js'
import {readVariablesFile} from '../variables/read-overrides.js'

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
  const field = (key: string) => `${file}: key "${key}"`
  try {
    const options = parseRenderOptions(found.config, field)
    await checkValues(options, field, cwd)
    return {filepath: file, options}
  } catch (error) {
    if (error instanceof EngineError) {
      throw new EngineError('INVALID_CONFIG', error.message, {file, ...(error.details as object)})
    }
    throw error
  }
}

/**
 * What the schema cannot see is checked now too, while the file and key are known: a value that
 * only fails later, deep in a render, would be reported under the flag's name instead.
 */
async function checkValues(options: RenderOptionsInput, field: (key: string) => string, cwd: string): Promise<void> {
  if (options.fps !== undefined) parseFps(options.fps, field('fps'))
  if (options.format !== undefined) getFormat(options.format, field('format'))
  if (options.browserPath !== undefined && !(await isExecutableFile(resolve(cwd, options.browserPath)))) {
    throw new EngineError(
      'INVALID_CONFIG',
      `${field('browserPath')}: "${options.browserPath}" is not an executable file; point it at a Chromium or chrome-headless-shell binary, or remove the key to find a browser automatically`,
      {key: 'browserPath', value: options.browserPath},
    )
  }
  if (options.variablesFile !== undefined) await readVariablesFile(resolve(cwd, options.variablesFile), field('variablesFile'))
  if (options.batch !== undefined) await openRowSource(resolve(cwd, options.batch), options.batchFormat, undefined, field('batch'))
}
