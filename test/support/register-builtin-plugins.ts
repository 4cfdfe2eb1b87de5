// Tests import engine modules directly, not through a package entry: register the built-in
// formats and GPU encoders the way the entries do.
import {afterAll} from 'vitest'
import {BUILTIN_SOURCE} from '../../src/lib/builtin-plugins.js'
import {listFormats, unregisterFormat} from '../../src/lib/encode/format-registry.js'
import {listGpuEncoders, unregisterGpuEncoder} from '../../src/lib/encode/gpu/gpu-encoders.js'

// The formats and GPU encoders a file registers are gone after it, so that a file sees the built-ins
// only even where files share a process (vitest isolate: false; see CONTRIBUTING.md).
afterAll(() => {
  for (const {name} of listFormats()) unregisterFormat(name, BUILTIN_SOURCE)
  for (const {name} of listGpuEncoders()) unregisterGpuEncoder(name, BUILTIN_SOURCE)
})
