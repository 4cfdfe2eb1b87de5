import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {packageRoot} from '../sandbox/package-root.js'

/** Where `npm run build` bundles src/lib/runtime/page/index.ts, relative to the package root. */
export const RUNTIME_BUNDLE_PATH = join('dist', 'runtime', 'engine-runtime.js')

let bundle: Promise<string> | undefined

/** The in-page runtime script, read once per process. */
export function loadRuntimeBundle(): Promise<string> {
  bundle ??= readFile(join(packageRoot(), RUNTIME_BUNDLE_PATH), 'utf8').catch((error: unknown) => {
    bundle = undefined
    throw new EngineError(
      'INTERNAL',
      `the page runtime ${join(packageRoot(), RUNTIME_BUNDLE_PATH)} is missing; run \`npm run build\` (it bundles src/lib/runtime/page)`,
      undefined,
      {cause: error},
    )
  })
  return bundle
}
