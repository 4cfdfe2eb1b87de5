import {pluginFailure, type PluginIdentity} from '../errors/plugin-failure.js'

/**
 * A plain copy of what a plugin registered (a format or a GPU encoder, possibly a class instance
 * whose methods live on its prototype) whose methods turn anything they throw or reject with into
 * PLUGIN_FAILED naming the plugin, the item and the method: a bug in a plugin's `assemble` reads
 * `plugin engine-plugin-x: format "x" assemble failed at /…/formats.js:12:5: …`, not INTERNAL.
 */
export function guardPluginCalls<T extends object>(item: T, plugin: PluginIdentity, kind: string): T {
  const label = `${kind} "${String((item as {name?: unknown}).name ?? '(unnamed)')}"`
  const copy: Record<string, unknown> = {}
  for (const key of propertyNames(item)) {
    const value = (item as Record<string, unknown>)[key]
    copy[key] = typeof value === 'function' ? guarded(value as (...args: unknown[]) => unknown, item, plugin, `${label} ${key}`) : value
  }
  return copy as T
}

function guarded(fn: (...args: unknown[]) => unknown, self: object, plugin: PluginIdentity, what: string) {
  return (...args: unknown[]) => {
    let result: unknown
    try {
      result = fn.apply(self, args)
    } catch (error) {
      throw pluginFailure(plugin, what, error)
    }
    return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(pluginFailure(plugin, what, error))) : result
  }
}

/** Own and inherited property names, up to (not including) Object.prototype. */
function propertyNames(item: object): string[] {
  const names = new Set<string>()
  for (let level: object | null = item; level && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const name of Object.getOwnPropertyNames(level)) if (name !== 'constructor') names.add(name)
  }
  return [...names]
}
