import type {Config} from '@oclif/core'
import {isRemoteTemplate, OUTPUT_STORES_HOOK, type OutputStore} from '../lib/batch/remote-output.js'
import {reportPluginProblem} from './plugin-hooks/plugin-problems.js'
import {EngineError} from '../lib/errors/engine-error.js'

/** A URL `--output` is a batch's: a single render writes a local file (or `engine lambda render` a key in the stack's bucket). */
export function assertRemoteOutputInBatch(output: string | undefined, batch: string | undefined): void {
  if (!isRemoteTemplate(output) || batch) return
  throw new EngineError('INVALID_FLAG', `--output ${output}: a URL output is for a batch (--batch rows.csv); render to a local file, or on the serverless stack with \`engine lambda render\``, {output})
}

/**
 * The output stores installed plugins provide, asked for only when `--output` is a URL: the hook
 * loads the provider's SDK, which no other command should pay for. A plugin whose hook fails is a
 * one-line warning; the batch then says which store is missing.
 */
export async function outputStoresFor(config: Config, output: string | undefined): Promise<OutputStore[]> {
  if (!isRemoteTemplate(output)) return []
  const api = await import('../plugin/api.js')
  const outcome = await config.runHook(OUTPUT_STORES_HOOK, {api}, undefined, true)
  for (const failure of outcome.failures) reportPluginProblem({plugin: failure.plugin.name, message: `plugin ${failure.plugin.name}: its ${OUTPUT_STORES_HOOK} hook failed (${failure.error.message}); its output stores are not available`})
  return outcome.successes.flatMap(({result}) => (Array.isArray(result) ? result.filter(isOutputStore) : []))
}

function isOutputStore(value: unknown): value is OutputStore {
  return value !== null && typeof value === 'object' && typeof (value as OutputStore).scheme === 'string' && typeof (value as OutputStore).open === 'function'
}
