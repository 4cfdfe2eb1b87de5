import {setFlagsFromString} from 'node:v8'
import {EngineError} from '../lib/errors/engine-error.js'

export const V8_FLAGS_ENV = 'ENGINE_V8_FLAGS'

const V8_FLAG = /^--[a-z][a-z0-9_-]*(=[^\s=]+)?$/i

/**
 * ENGINE_V8_FLAGS: V8 flags for the engine's own Node process, separated by spaces (Node refuses
 * most of them in NODE_OPTIONS). `--no-opt` suits many short runs: the optimising compiler's
 * background work costs more than it saves there (`engine render` of a missing file: 0.43 -> 0.34
 * CPU-s; 8 video rows as a batch: 6 % less CPU a row), but a long batch of stills ran 6 % slower
 * without it, so it is not the default. The test suite sets it for every process it starts.
 */
export function applyV8Flags(env: NodeJS.ProcessEnv = process.env): void {
  const value = env[V8_FLAGS_ENV]?.trim()
  if (!value) return
  const flags = value.split(/\s+/)
  const bad = flags.find((flag) => !V8_FLAG.test(flag))
  if (bad !== undefined) {
    throw new EngineError('INVALID_CONFIG', `${V8_FLAGS_ENV}: "${bad}" is no V8 flag; give flags such as --no-opt, separated by spaces, or unset it`, {
      field: V8_FLAGS_ENV,
      value,
    })
  }
  for (const flag of flags) setFlagsFromString(flag)
}
