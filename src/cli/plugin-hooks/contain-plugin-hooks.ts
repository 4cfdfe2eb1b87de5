import {Config, Errors, ModuleLoader, ux, type Interfaces} from '@oclif/core'
import {join} from 'node:path'
import {pluginFailure} from '../../lib/errors/plugin-failure.js'
import {debug, warn} from '../log.js'
import {reportPluginProblem} from './plugin-problems.js'
import type {PluginHookPolicy} from './hook-policy.js'
import {withBlockedHookWatchdog} from './blocked-hook-watchdog.js'
import {syntaxErrorLocation} from './syntax-location.js'

interface HookResult {
  successes: Array<{plugin: Interfaces.Plugin; result: unknown}>
  failures: Array<{plugin: Interfaces.Plugin; error: Error}>
}

/** oclif runs `preparse` hooks of the root plugin only. */
const ROOT_ONLY_HOOKS = new Set(['preparse'])

const isUserPlugin = (plugin: Interfaces.Plugin) => plugin.type === 'user' || plugin.type === 'link'

/**
 * Replaces oclif's hook runner so that no user plugin can stop the CLI: oclif offers no seam for
 * this (its hook timeout is an unref'd timer, so a hook that never settles ends the process with
 * exit 13, every command included, and only when a caller passes a timeout at all). Here a user
 * plugin's hook (installed or linked) runs only when the policy allows it, always under a timer
 * that fires, and whatever goes wrong (load, syntax error, no hook function, throw, timeout)
 * becomes a PLUGIN_FAILED naming the plugin and the file:line, collected as a failure instead of
 * thrown. Failures of oclif's own events (init, prerun…) are warned here in one line; the
 * `engine:*` events' callers report theirs with what the failure costs. Core plugins' hooks keep
 * oclif's behaviour.
 */
export function containPluginHooks(policy: PluginHookPolicy): void {
  Config.prototype.runHook = async function runHook(this: Config, event: string, options: object, timeout?: number, captureErrors?: boolean) {
    const result: HookResult = {successes: [], failures: []}
    const plugins = [...this.plugins.values()].filter((plugin) => !ROOT_ONLY_HOOKS.has(event) || plugin.isRoot)
    await Promise.all(
      plugins.map(async (plugin) => {
        const user = isUserPlugin(plugin)
        if (user && !policy.runUserHooks) return
        for (const hook of plugin.hooks[event] ?? []) {
          try {
            const value = user
              ? await withBlockedHookWatchdog(policy.timeoutMs, blockedMessage(plugin, event, hook), () => runUserHook(this, plugin, event, hook, options, policy.timeoutMs))
              : await runCoreHook(this, plugin, hook, options, timeout)
            if (value !== NO_HOOK) result.successes.push({plugin, result: value})
          } catch (error) {
            result.failures.push({plugin, error: error as Error})
            if (user) {
              if (!event.startsWith('engine:')) reportPluginProblem({plugin: plugin.name, message: (error as Error).message, detail: (error as {details?: {stack?: string}}).details?.stack})
              continue
            }
            const exit = (error as {oclif?: {exit?: number}}).oclif?.exit
            if (!captureErrors && exit !== undefined && exit !== 0 && (error as {code?: string}).code !== 'MODULE_NOT_FOUND') throw error
          }
        }
      }),
    )
    return result as never
  } as Config['runHook']
}

const NO_HOOK = Symbol('no hook function')
type HookDefinition = {target: string; identifier: string}

async function runCoreHook(config: Config, plugin: Interfaces.Plugin, hook: HookDefinition, options: object, timeout?: number): Promise<unknown> {
  const {module} = await ModuleLoader.loadWithData(plugin, join(plugin.root, hook.target))
  const fn = hookFunction(module, hook.identifier)
  if (!fn) return NO_HOOK
  const call = fn.call(hookContext(config), {...options, config, context: hookContext(config)})
  return timeout ? withTimeout(Promise.resolve(call), timeout) : call
}

async function runUserHook(config: Config, plugin: Interfaces.Plugin, event: string, hook: HookDefinition, options: object, timeoutMs: number): Promise<unknown> {
  const file = join(plugin.root, hook.target)
  const what = `its ${event} hook (${hook.target})`
  let module: Record<string, unknown>
  try {
    module = (await withTimeout(ModuleLoader.loadWithData(plugin, file), timeoutMs)).module as Record<string, unknown>
  } catch (error) {
    const location = error instanceof SyntaxError ? await syntaxErrorLocation(file) : undefined
    throw pluginFailure(plugin, `loading ${what}`, error, location ?? (error instanceof SyntaxError ? `${file} or a module it imports` : undefined))
  }
  const fn = hookFunction(module, hook.identifier)
  if (!fn) {
    const exported = Object.keys(module).filter((key) => key !== '__esModule')
    throw pluginFailure(
      plugin,
      what,
      new Error(`${file} has no ${hook.identifier === 'default' ? 'default export' : `export named ${hook.identifier}`} to call (it exports ${exported.length > 0 ? exported.join(', ') : 'nothing'}): export the hook function as default`),
    )
  }
  try {
    const context = hookContext(config)
    return await withTimeout(Promise.resolve().then(() => fn.call(context, {...options, config, context})), timeoutMs)
  } catch (error) {
    throw pluginFailure(plugin, what, error)
  }
}

/** As oclif finds a hook: the named export, or for `default` the default export or the first function. */
function hookFunction(module: Record<string, unknown>, identifier: string): ((...args: unknown[]) => unknown) | undefined {
  if (typeof module === 'function') return module as (...args: unknown[]) => unknown
  const named = module[identifier]
  if (typeof named === 'function') return named as (...args: unknown[]) => unknown
  if (identifier !== 'default') return undefined
  const inner = (module.default as Record<string, unknown> | undefined)?.default
  if (typeof inner === 'function') return inner as (...args: unknown[]) => unknown
  return Object.values(module).find((value): value is (...args: unknown[]) => unknown => typeof value === 'function')
}

function hookContext(config: Config) {
  return {
    config,
    debug: (...args: unknown[]) => debug(args.map(String).join(' ')),
    error: (message: string | Error, options: {code?: string; exit?: number} = {}) => Errors.error(message, options as {exit: number}),
    exit: (code = 0) => Errors.exit(code),
    log: (message?: string, ...args: string[]) => ux.stdout(message, ...args),
    warn: (message: string | Error) => warn(typeof message === 'string' ? message : message.message),
  }
}

function blockedMessage(plugin: Interfaces.Plugin, event: string, hook: HookDefinition): string {
  return (
    `error [PLUGIN_FAILED]: plugin ${plugin.name}: its ${event} hook (${hook.target}) kept engine busy without ever yielding (a synchronous loop?), so engine stopped; ` +
    `\`engine plugins ${plugin.type === 'link' ? 'unlink' : 'uninstall'} ${plugin.name}\` removes it, ENGINE_NO_PLUGINS=1 runs engine without plugins`
  )
}

/** Rejects after `ms` with a timer that keeps the process alive until it fires or the work settles. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s (ENGINE_PLUGIN_TIMEOUT=<seconds> waits longer)`)), ms)
  })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}
