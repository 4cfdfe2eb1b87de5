// Entry of the in-page runtime bundle (dist/runtime/engine-runtime.js, a classic script). The capture
// worker evaluates it on every new document, right after setting window.__ENGINE_CONFIG__.
import {ENGINE_GLOBAL} from '../page-protocol.js'
import {RUNTIME_CONFIG_GLOBAL, type RuntimeConfig} from '../runtime-config.js'
import {installRuntime} from './install-runtime.js'

const config = (window as unknown as Record<string, RuntimeConfig | undefined>)[RUNTIME_CONFIG_GLOBAL]

// Only the top document is seeked (an iframe keeps its own clocks), unless the composition itself
// is shown in a frame, as in the preview.
if (config && (window === window.top || config.embedded)) {
  Object.defineProperty(window, ENGINE_GLOBAL, {
    value: installRuntime(window, config),
    enumerable: true,
    writable: false,
    configurable: false,
  })
}
