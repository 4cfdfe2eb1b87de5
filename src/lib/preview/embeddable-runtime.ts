import {EngineError} from '../errors/engine-error.js'
import {loadRuntimeBundle} from '../capture/runtime-bundle.js'

/**
 * The runtime installs itself only in the top document, so that frames inside a composition keep
 * their own clocks during capture. The preview shows the composition in an iframe of the player
 * page, where it must install all the same: the one guard is lifted here. The page config is
 * written by the preview into that iframe only, so frames nested in the composition still get no
 * runtime.
 */
const TOP_ONLY_GUARD = 'config && window === window.top'

let patched: Promise<string> | undefined

/** The render runtime bundle, made to install in the preview's composition iframe. */
export function loadEmbeddableRuntime(): Promise<string> {
  patched ??= loadRuntimeBundle().then((bundle) => {
    if (!bundle.includes(TOP_ONLY_GUARD)) {
      throw new EngineError(
        'INTERNAL',
        `the page runtime no longer contains the guard "${TOP_ONLY_GUARD}" that engine preview lifts; the preview cannot install it in its iframe`,
      )
    }
    return bundle.replace(TOP_ONLY_GUARD, 'config')
  })
  patched.catch(() => (patched = undefined))
  return patched
}
