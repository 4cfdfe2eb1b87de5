import type {Hook} from '@oclif/core'
import {reportPluginProblem} from '../../cli/plugin-hooks/plugin-problems.js'

/**
 * Registers the built-in formats and GPU encoders, then those of installed and linked oclif
 * plugins: each declares `engine:formats` / `engine:gpu-encoders` hooks that return them. The
 * hooks receive the public plugin API as `api`. A failing plugin is a one-line warning, not a
 * failed command; its hooks run under the timeout and the rules of contain-plugin-hooks.
 */
const hook: Hook.Init = async function (options) {
  await import('../../lib/builtin-plugins.js')
  const [{registerHookOutcome}, api, {userPluginOrder}] = await Promise.all([
    import('../../lib/encode/register-plugin-hooks.js'),
    import('../../plugin/api.js'),
    import('../../lib/config/installed-plugins.js'),
  ])
  // Hooks run concurrently; register in the order the plugins were installed, so that of two
  // plugins claiming one name the first installed keeps it on every run (core plugins first).
  const order = await userPluginOrder(options.config.dataDir)
  const position = (entry: {plugin: {name: string}}) => order.indexOf(entry.plugin.name)
  for (const name of ['engine:formats', 'engine:gpu-encoders'] as const) {
    const outcome = await options.config.runHook(name, {api}, undefined, true)
    const successes = outcome.successes.toSorted((a, b) => position(a) - position(b))
    registerHookOutcome(name, {...outcome, successes}, reportPluginProblem)
  }
}

export default hook
