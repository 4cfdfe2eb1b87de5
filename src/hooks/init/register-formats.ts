import type {Hook} from '@oclif/core'

/**
 * Lets third-party oclif plugins add output formats: a plugin declares an `engine:formats` hook
 * that returns format plugins, and they are registered before any command runs.
 */
const hook: Hook.Init = async function (options) {
  const {registerFormat} = await import('../../lib/encode/format-registry.js')
  const results = await options.config.runHook('engine:formats', {})
  for (const success of results.successes) {
    for (const format of (success.result as unknown[] | undefined) ?? []) registerFormat(format as never)
  }
}

export default hook
