import {fileURLToPath} from 'node:url'
import {EngineError} from './engine-error.js'

/** Who failed: a plugin's package name and, when known, the directory it is installed in. */
export interface PluginIdentity {
  name: string
  root?: string
}

/**
 * An error thrown from a plugin's code, as PLUGIN_FAILED naming the plugin, what of it failed and
 * where (the first place in its own files the stack passes through, `file:line`). Its stack is kept
 * in the details for `--log-level debug`. An EngineError the plugin threw on purpose (bad input,
 * with its own code and fix) is passed on unchanged.
 */
export function pluginFailure(plugin: PluginIdentity, what: string, error: unknown, location?: string): EngineError {
  if (error instanceof EngineError) return error
  const stack = error instanceof Error ? error.stack : undefined
  const where = location ?? locateInPlugin(stack, plugin.root)
  const reason = error instanceof Error ? `${error.name && error.name !== 'Error' ? `${error.name}: ` : ''}${error.message}` : String(error)
  return new EngineError(
    'PLUGIN_FAILED',
    `plugin ${plugin.name}: ${what} failed${where ? ` at ${where}` : ''}: ${reason}`,
    {plugin: plugin.name, what, ...(where && {location: where}), ...(stack && {stack})},
    {cause: error},
  )
}

/** `path:line:column` of the first stack frame inside the plugin's directory. */
export function locateInPlugin(stack: string | undefined, root: string | undefined): string | undefined {
  if (!stack || !root) return undefined
  for (const match of stack.matchAll(/(file:\/\/[^\s)]+|\/[^\s):]+):(\d+)(?::(\d+))?/g)) {
    const path = match[1].startsWith('file://') ? safeFileUrlToPath(match[1]) : match[1]
    if (path && (path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`))) {
      return `${path}:${match[2]}${match[3] ? `:${match[3]}` : ''}`
    }
  }
  return undefined
}

function safeFileUrlToPath(url: string): string | undefined {
  try {
    return fileURLToPath(url)
  } catch {
    return undefined
  }
}
