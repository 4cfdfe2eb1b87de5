import {dirname, resolve} from 'node:path'
import {cosmiconfig, getDefaultSearchPlaces} from 'cosmiconfig'
import {openRowSource} from '../batch/rows/read-rows.js'
import {isExecutableFile} from '../browser/resolve-browser.js'
import {getFormat} from '../encode/format-registry.js'
import {EngineError} from '../errors/engine-error.js'
import {parseFps} from '../plan/fps.js'
import {parseRenderOptions, type RenderOptionsInput} from '../plan/render-options.js'
import {readVariablesFile} from '../variables/read-overrides.js'
import {assertConfigPathsInside} from './confine-config-paths.js'
import {TRUST_HOW} from './project-trust.js'

/** Data files first, then cosmiconfig's standard places (.config/enginerc…, engine.config.ts…), which are code mostly. */
export const CONFIG_SEARCH_PLACES = [
  ...new Set([
    'package.json',
    '.enginerc',
    '.enginerc.json',
    '.enginerc.yaml',
    '.enginerc.yml',
    'engine.config.json',
    'engine.config.yaml',
    'engine.config.yml',
    ...getDefaultSearchPlaces('engine'),
  ]),
]

/** Keys a project config may set only when the user trusts it: they run a program or open the sandbox. */
export const TRUSTED_ONLY_KEYS = {
  browserPath: 'runs that program as the browser',
  allowPrivateNetwork: "lets the page reach this machine's and its network's private services",
} as const

export interface LoadedConfig {
  /** File the values came from, or undefined when no config file was found. */
  filepath?: string
  options: RenderOptionsInput
}

export interface LoadConfigOptions {
  /** The user trusts project configs (see projectConfigTrusted): code configs and TRUSTED_ONLY_KEYS allowed. */
  trusted?: boolean
  /** This file (`--config`) instead of searching; relative to `cwd`. */
  file?: string
}

/**
 * Finds the nearest engine configuration (searching upwards from `cwd` in cosmiconfig's standard
 * places, or reads the file `--config` names) and validates it. An
 * invalid file is an error naming the file and the key, never silently ignored. A config is data
 * (JSON, YAML, package.json) unless the user trusts project configs: a JavaScript config is then
 * refused without being run, and so are keys that run a program or open the sandbox.
 */
export async function loadConfig(cwd: string = process.cwd(), options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const refuseCode = (filepath: string): never => {
    throw new EngineError(
      'INVALID_CONFIG',
      `${filepath} is JavaScript, and running it would run the project's code: engine reads a project's config as data only (.json, .yaml, package.json) unless you trust it: ${TRUST_HOW}`,
      {file: filepath},
    )
  }
  const explorer = cosmiconfig('engine', {
    searchPlaces: CONFIG_SEARCH_PLACES,
    searchStrategy: 'project',
    ...(!options.trusted && {loaders: {'.js': refuseCode, '.mjs': refuseCode, '.cjs': refuseCode, '.ts': refuseCode, '.mts': refuseCode, '.cts': refuseCode}}),
  })
  let found
  try {
    found = options.file === undefined ? await explorer.search(cwd) : await explorer.load(resolve(cwd, options.file))
  } catch (error) {
    if (error instanceof EngineError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && options.file !== undefined) {
      throw new EngineError('INVALID_FLAG', `--config: ${options.file} does not exist; give the path of a config file (.json, .yaml, package.json…)`, {file: options.file})
    }
    throw new EngineError('INVALID_CONFIG', `could not read the engine configuration: ${(error as Error).message}`, {
      cwd,
    })
  }
  if (!found || found.isEmpty) return {options: {}}
  const file = found.filepath
  const field = (key: string) => `${file}: key "${key}"`
  try {
    const parsed = parseRenderOptions(found.config, field)
    if (!options.trusted) {
      assertNoTrustedOnlyKeys(parsed, field)
      await assertConfigPathsInside(parsed, dirname(file), cwd, field)
    }
    await checkValues(parsed, field, cwd)
    return {filepath: file, options: parsed}
  } catch (error) {
    if (error instanceof EngineError) {
      throw new EngineError('INVALID_CONFIG', error.message, {file, ...(error.details as object)})
    }
    throw error
  }
}

function assertNoTrustedOnlyKeys(options: RenderOptionsInput, field: (key: string) => string): void {
  for (const [key, effect] of Object.entries(TRUSTED_ONLY_KEYS)) {
    const value = options[key as keyof typeof TRUSTED_ONLY_KEYS]
    if (value === undefined || value === false) continue
    throw new EngineError('INVALID_CONFIG', `${field(key)} ${effect}; a project's config may set it only when you trust the project: ${TRUST_HOW}`, {key, value})
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
