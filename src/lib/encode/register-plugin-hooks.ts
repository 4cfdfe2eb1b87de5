import {toEngineError} from '../errors/engine-error.js'
import type {FormatPlugin} from './format-plugin.js'
import {registerFormat} from './format-registry.js'
import {registerGpuEncoder, type GpuEncoder} from './gpu/gpu-encoders.js'

/** What oclif's `config.runHook` reports: each plugin's result, or the error its hook threw. */
export interface HookOutcome {
  successes: ReadonlyArray<{plugin: {name: string}; result: unknown}>
  failures: ReadonlyArray<{plugin: {name: string}; error: unknown}>
}

export type PluginHookName = 'engine:formats' | 'engine:gpu-encoders'

const REGISTER: Record<PluginHookName, {what: string; register: (item: never, source: string) => void}> = {
  'engine:formats': {what: 'formats', register: (item: FormatPlugin, source) => registerFormat(item, source)},
  'engine:gpu-encoders': {what: 'GPU encoders', register: (item: GpuEncoder, source) => registerGpuEncoder(item, source)},
}

/**
 * Registers what every plugin's hook returned. One plugin's failure (its hook threw, returned
 * something other than a list, or an entry is invalid or takes a taken name) becomes a warning
 * naming the plugin and the error, and never stops the others.
 */
export function registerHookOutcome(hook: PluginHookName, outcome: HookOutcome, warn: (message: string) => void): void {
  const {what, register} = REGISTER[hook]
  for (const failure of outcome.failures) {
    warn(`plugin ${failure.plugin.name}: its ${hook} hook failed (${toEngineError(failure.error).message}); its ${what} are not available`)
  }
  for (const {plugin, result} of outcome.successes) {
    if (result === undefined) continue
    if (!Array.isArray(result)) {
      warn(`plugin ${plugin.name}: its ${hook} hook must return a list of ${what}, not ${typeof result}; its ${what} are not available`)
      continue
    }
    for (const item of result) {
      try {
        register(item as never, `plugin ${plugin.name}`)
      } catch (error) {
        warn(toEngineError(error).message)
      }
    }
  }
}
