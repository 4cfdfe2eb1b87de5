import {BUILTIN_FORMAT_PLUGINS} from '../../plugins/formats/index.js'
import {BUILTIN_GPU_ENCODERS} from '../../plugins/gpu-encoders/index.js'
import {registerFormat} from './encode/format-registry.js'
import {registerGpuEncoder} from './encode/gpu/gpu-encoders.js'

/** How messages name the formats and encoders that ship with the engine. */
export const BUILTIN_SOURCE = 'engine (built-in)'

/**
 * Registers the formats and GPU encoders in plugins/. The core never imports them: the package's
 * entry modules (the SDK index, the Lambda handler, the CLI's init hook) import this module, so
 * built-ins arrive the way third-party plugins do. Registering twice is a no-op.
 */
export function registerBuiltinPlugins(): void {
  for (const format of BUILTIN_FORMAT_PLUGINS) registerFormat(format, BUILTIN_SOURCE)
  for (const encoder of BUILTIN_GPU_ENCODERS) registerGpuEncoder(encoder, BUILTIN_SOURCE)
}

registerBuiltinPlugins()
