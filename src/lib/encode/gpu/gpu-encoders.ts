import {z} from 'zod'
import {EngineError} from '../../errors/engine-error.js'
import type {EncodeSettings} from '../rate-control.js'
import {deepFreeze} from '../../plan/deep-freeze.js'

/** One hardware H.264 backend and how to drive it from the plan's encode settings. */
export interface GpuEncoder {
  /** Short name (lowercase letters, digits and dashes), recorded in the plan. */
  readonly name: string
  readonly label: string
  /** The `ffmpeg -encoders` name. */
  readonly encoder: string
  readonly platforms: readonly NodeJS.Platform[]
  /** Arguments that must come before the first input (device selection). */
  inputArgs(): string[]
  /** Filter appended after the colour conversion (upload to the device). */
  readonly uploadFilter?: string
  /** `-c:v ...` and rate control. */
  videoArgs(encode: EncodeSettings): string[]
}

interface Registered {
  /** A frozen copy of what was registered. */
  encoder: GpuEncoder
  /** The object as registered, to recognise the same registration again. */
  registered: GpuEncoder
  /** The plugin that registered it, for messages. */
  source: string
}

const registry = new Map<string, Registered>()

const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'must be a function')
const gpuEncoderSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes'),
  label: z.string().min(1),
  encoder: z.string().min(1),
  platforms: z.array(z.string()),
  inputArgs: fn,
  uploadFilter: z.string().optional(),
  videoArgs: fn,
})

/**
 * Adds a GPU encoder (built-in or from a plugin's `engine:gpu-encoders` hook); `source` names the
 * plugin. Registering the same object twice is a no-op; another encoder with a taken name is refused.
 */
export function registerGpuEncoder(encoder: GpuEncoder, source = 'the caller'): void {
  const result = gpuEncoderSchema.safeParse(encoder)
  const name = typeof (encoder as {name?: unknown})?.name === 'string' ? encoder.name : '(unnamed)'
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'encoder'} ${issue.message}`).join('; ')
    throw new EngineError('INVALID_CONFIG', `GPU encoder "${name}" from ${source} is invalid: ${problems}`, {issues: result.error.issues, plugin: source})
  }
  const existing = registry.get(encoder.name)
  if (existing && (existing.registered === encoder || existing.encoder === encoder)) return
  if (existing) {
    throw new EngineError(
      'INVALID_CONFIG',
      `GPU encoder "${encoder.name}" from ${source} is refused: ${existing.source} already registers one with that name`,
      {gpuEncoder: encoder.name, plugin: source, registeredBy: existing.source},
    )
  }
  // A frozen copy: no plugin (nor anything else) can change an encoder other renders use.
  registry.set(encoder.name, {encoder: deepFreeze({...encoder}), registered: encoder, source})
}

/** Forgets an encoder that was not built in (see unregisterFormat). */
export function unregisterGpuEncoder(name: string, builtinSource: string): boolean {
  const entry = registry.get(name)
  if (!entry || entry.source === builtinSource) return false
  return registry.delete(name)
}

export function listGpuEncoders(): GpuEncoder[] {
  return [...registry.values()].map((entry) => entry.encoder)
}

/** Backends worth probing on `platform`, in the order they were registered. */
export function gpuEncodersFor(platform: NodeJS.Platform): GpuEncoder[] {
  return listGpuEncoders().filter((encoder) => encoder.platforms.includes(platform))
}

export function gpuEncoderByName(name: string): GpuEncoder {
  const entry = registry.get(name)
  if (!entry) throw new EngineError('INTERNAL', `unknown GPU encoder "${name}"; known: ${[...registry.keys()].join(', ')}`)
  return entry.encoder
}
