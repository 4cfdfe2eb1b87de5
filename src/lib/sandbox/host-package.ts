import module from 'node:module'
import {packageRoot} from './package-root.js'
import {initialize, resolve} from './host-package-hooks.js'

const REGISTER_MODULE = new URL('./host-package-register.js', import.meta.url).href
let registered = false

/**
 * Makes `import 'html-video-engine…'` load this engine in this process, for the plugins it runs
 * (see host-package-hooks.ts). Synchronous hooks where Node has them (22.15), else a loader thread.
 */
export function registerHostPackage(root: string = packageRoot()): void {
  if (registered) return
  registered = true
  if (typeof module.registerHooks === 'function') {
    initialize({root})
    module.registerHooks({resolve})
  } else {
    module.register(new URL('./host-package-hooks.js', import.meta.url), {data: {root}})
  }
}

/** Node options for a child process that runs plugin code: the same resolution as here. */
export function hostPackageExecArgv(): string[] {
  return ['--import', REGISTER_MODULE]
}
