import {z} from 'zod'
import {BUILTIN_FORMAT_PLUGINS} from '../../../plugins/formats/index.js'
import {EngineError} from '../errors/engine-error.js'
import type {FormatPlugin} from './format-plugin.js'

const registry = new Map<string, FormatPlugin>(BUILTIN_FORMAT_PLUGINS.map((plugin) => [plugin.name, plugin]))

const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'must be a function')
const extension = z.string().regex(/^\.[a-z0-9]+$/, 'must be an extension such as ".mp4"')

const common = {
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes'),
  description: z.string(),
  alpha: z.boolean(),
  audio: z.enum(['aac', 'opus', 'none', 'sidecar']),
  maxFps: z.number().positive().optional(),
  evenDimensions: z.boolean(),
  rateControl: z.boolean(),
  gpu: z.boolean(),
  requiredEncoders: fn,
}

// Third-party plugins arrive from other packages at run time: check their shape once, here.
const pluginSchema = z.discriminatedUnion('worker', [
  z.object({...common, worker: z.literal('video-segment'), extension, segmentExtension: extension, segmentArgs: fn, assemble: fn}),
  z.object({...common, worker: z.literal('image-stream'), extension, assemble: fn}),
  z.object({...common, worker: z.literal('frame-files'), frameFileName: fn, frameFilePattern: z.instanceof(RegExp)}),
])

/** Adds a format (built-in or from an oclif plugin's hook). Registering the same object twice is a no-op. */
export function registerFormat(plugin: FormatPlugin): void {
  const result = pluginSchema.safeParse(plugin)
  const name = typeof (plugin as {name?: unknown})?.name === 'string' ? plugin.name : '(unnamed)'
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'plugin'} ${issue.message}`).join('; ')
    throw new EngineError('INVALID_CONFIG', `format plugin "${name}" is invalid: ${problems}`, {issues: result.error.issues})
  }
  const existing = registry.get(plugin.name)
  if (existing === plugin) return
  if (existing) {
    throw new EngineError('INVALID_CONFIG', `format plugin "${plugin.name}" is already registered; a plugin must pick another name`, {
      format: plugin.name,
    })
  }
  registry.set(plugin.name, plugin)
}

/** The plugin for `--format name`, or an INVALID_FLAG naming the formats that exist. */
export function getFormat(name: string): FormatPlugin {
  const plugin = registry.get(name)
  if (!plugin) {
    throw new EngineError('INVALID_FLAG', `--format: "${name}" is not a known format; use one of ${[...registry.keys()].join(', ')}`, {
      format: name,
    })
  }
  return plugin
}

export function listFormats(): FormatPlugin[] {
  return [...registry.values()]
}
