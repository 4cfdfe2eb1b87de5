import {toEngineError} from '../errors/engine-error.js'
import type {PluginIdentity} from '../errors/plugin-failure.js'
import type {FormatPlugin} from './format-plugin.js'
import {registerFormat} from './format-registry.js'
import {registerGpuEncoder, type GpuEncoder} from './gpu/gpu-encoders.js'
import {guardPluginCalls} from './guard-plugin-calls.js'

/** What oclif's `config.runHook` reports: each plugin's result, or the error its hook threw. */
export interface HookOutcome {
  successes: ReadonlyArray<{plugin: PluginIdentity; result: unknown}>
  failures: ReadonlyArray<{plugin: PluginIdentity; error: unknown}>
}

export type PluginHookName = 'engine:formats' | 'engine:gpu-encoders'

/** A warning in one line about one plugin; `detail` (a stack) is for the debug log level. */
export type PluginWarn = (warning: {plugin: string; message: string; detail?: string}) => void

const REGISTER: Record<PluginHookName, {what: string; kind: string; register: (item: never, source: string) => void}> = {
  'engine:formats': {what: 'formats', kind: 'format', register: (item: FormatPlugin, source) => registerFormat(item, source)},
  'engine:gpu-encoders': {what: 'GPU encoders', kind: 'GPU encoder', register: (item: GpuEncoder, source) => registerGpuEncoder(item, source)},
}

/**
 * Registers what every plugin's hook returned, each item's methods guarded so that an exception in
 * them names the plugin (PLUGIN_FAILED). One plugin's failure (its hook threw or timed out,
 * returned something other than a list, or an entry is invalid or takes a taken name) becomes a
 * one-line warning naming the plugin and the error, and never stops the others.
 */
export function registerHookOutcome(hook: PluginHookName, outcome: HookOutcome, warn: PluginWarn): void {
  const {what, kind, register} = REGISTER[hook]
  for (const failure of outcome.failures) {
    const error = toEngineError(failure.error)
    const message = error.code === 'PLUGIN_FAILED' ? error.message : `plugin ${failure.plugin.name}: its ${hook} hook failed (${error.message})`
    warn({plugin: failure.plugin.name, message: `${message}; its ${what} are not available`, detail: (error.details as {stack?: string} | undefined)?.stack})
  }
  for (const {plugin, result} of outcome.successes) {
    if (result === undefined) continue
    if (!Array.isArray(result)) {
      warn({plugin: plugin.name, message: `plugin ${plugin.name}: its ${hook} hook must return a list of ${what}, not ${typeof result}; its ${what} are not available`})
      continue
    }
    for (const item of result) {
      try {
        register((item !== null && typeof item === 'object' ? guardPluginCalls(item, plugin, kind) : item) as never, `plugin ${plugin.name}`)
      } catch (error) {
        warn({plugin: plugin.name, message: toEngineError(error).message})
      }
    }
  }
}
