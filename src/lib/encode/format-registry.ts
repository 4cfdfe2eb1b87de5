import {z} from 'zod'
import {closest} from '../errors/closest-name.js'
import {EngineError} from '../errors/engine-error.js'
import type {FormatPlugin} from './format-plugin.js'
import {deepFreeze} from '../plan/deep-freeze.js'

/** The plugin API version this engine implements (see src/plugin). */
export const PLUGIN_API_VERSION = 1

interface Registered {
  /** A frozen copy of what was registered. */
  format: FormatPlugin
  /** The object as registered, to recognise the same registration again. */
  registered: FormatPlugin
  /** The plugin that registered it, for messages. */
  source: string
}

const registry = new Map<string, Registered>()

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
  apiVersion: z.number().int().positive().optional(),
  keyframeInterval: fn.optional(),
  subtitleCodec: z.string().regex(/^[a-z0-9_]+$/, 'must be an ffmpeg subtitle encoder name such as "mov_text"').optional(),
  mimeType: z.string().regex(/^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/i, 'must be a media type such as "video/x-matroska"').optional(),
}
const countFrames = z.union([z.literal(false), fn]).optional()
const companionFilePattern = z.instanceof(RegExp).optional()

// Third-party plugins arrive from other packages at run time: check their shape once, here.
const pluginSchema = z.discriminatedUnion('worker', [
  z.object({...common, worker: z.literal('video-segment'), extension, segmentExtension: extension, segmentArgs: fn, assemble: fn, countFrames, companionFilePattern}),
  z.object({...common, worker: z.literal('image-stream'), extension, assemble: fn, countFrames, companionFilePattern}),
  z.object({...common, worker: z.literal('frame-files'), frameFileName: fn, frameFilePattern: z.instanceof(RegExp)}),
])

/**
 * Adds a format (built-in, from a plugin's `engine:formats` hook, or from SDK code); `source`
 * names who registers it, so that a refusal names both plugins. Registering the same object twice
 * is a no-op.
 */
export function registerFormat(plugin: FormatPlugin, source = 'the caller'): void {
  const result = pluginSchema.safeParse(plugin)
  const name = typeof (plugin as {name?: unknown})?.name === 'string' ? plugin.name : '(unnamed)'
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'plugin'} ${issue.message}`).join('; ')
    throw new EngineError('INVALID_CONFIG', `format plugin "${name}" from ${source} is invalid: ${problems}`, {issues: result.error.issues, plugin: source})
  }
  if (plugin.apiVersion !== undefined && plugin.apiVersion > PLUGIN_API_VERSION) {
    throw new EngineError(
      'INVALID_CONFIG',
      `format plugin "${name}" from ${source} needs plugin API ${plugin.apiVersion}, but this engine provides ${PLUGIN_API_VERSION}: update engine, or install an older version of the plugin`,
      {plugin: source, format: name, apiVersion: plugin.apiVersion},
    )
  }
  const existing = registry.get(plugin.name)
  // The same registration again, by the object registered or the copy getFormat handed out.
  if (existing && (existing.registered === plugin || existing.format === plugin)) return
  if (existing) {
    throw new EngineError(
      'INVALID_CONFIG',
      `format "${plugin.name}" from ${source} is refused: ${existing.source} already registers a format with that name; one of them must be renamed or uninstalled`,
      {format: plugin.name, plugin: source, registeredBy: existing.source},
    )
  }
  // A frozen copy: no plugin (nor anything else) can change a format other renders use.
  registry.set(plugin.name, {format: deepFreeze({...plugin}), registered: plugin, source})
}

/** The plugin for `--format name`, or an INVALID_FLAG naming `field` (where the name was written) and the formats that exist. */
export function getFormat(name: string, field = '--format'): FormatPlugin {
  const entry = registry.get(name)
  if (!entry) {
    const names = [...registry.keys()]
    const meant = closest(name, names)
    throw new EngineError('INVALID_FLAG', `${field}: "${name}" is not a known format; ${meant ? `did you mean ${meant}? ` : ''}use one of ${names.join(', ')}`, {
      format: name,
      ...(meant && {suggestion: meant}),
    })
  }
  return entry.format
}

export function listFormats(): FormatPlugin[] {
  return [...registry.values()].map((entry) => entry.format)
}

/**
 * Forgets a format that was not built in; returns whether it was there. The test suite removes
 * after each file the formats that file registered, so that no other file sharing its process sees them.
 */
export function unregisterFormat(name: string, builtinSource: string): boolean {
  const entry = registry.get(name)
  if (!entry || entry.source === builtinSource) return false
  return registry.delete(name)
}

/** Who registered the format (a plugin's name, or the built-ins). */
export function formatSource(name: string): string | undefined {
  return registry.get(name)?.source
}

