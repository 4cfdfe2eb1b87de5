import {existsSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {EngineError} from '../errors/engine-error.js'

/** Where `npm run build` bundles src/lib/runtime/page/index.ts, relative to the package root. */
export const RUNTIME_BUNDLE_PATH = join('dist', 'runtime', 'engine-runtime.js')

let bundle: Promise<string> | undefined

/** The package root: the nearest directory above this module with a package.json (works from src/ and dist/). */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let directory = from; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return directory
    if (dirname(directory) === directory) return from
  }
}

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
