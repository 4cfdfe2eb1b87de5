// Tests import engine modules directly, not through a package entry: register the built-in
// formats and GPU encoders the way the entries do.
import {afterAll} from 'vitest'
import {BUILTIN_SOURCE} from '../../src/lib/builtin-plugins.js'
import {listFormats, unregisterFormat} from '../../src/lib/encode/format-registry.js'
import {listGpuEncoders, unregisterGpuEncoder} from '../../src/lib/encode/gpu/gpu-encoders.js'

// Files share their worker's process (vitest.config.ts, isolate: false): the formats and GPU
// encoders a file registers are gone before the next file, which sees the built-ins only, as a
// process of its own would.
afterAll(() => {
  for (const {name} of listFormats()) unregisterFormat(name, BUILTIN_SOURCE)
  for (const {name} of listGpuEncoders()) unregisterGpuEncoder(name, BUILTIN_SOURCE)
})
