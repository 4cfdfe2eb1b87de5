import {readdirSync, renameSync, statSync, writeFileSync, existsSync, mkdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {build} from 'esbuild'

const root = join(import.meta.dirname, '../../..')
const entry = join(root, 'src/lib/runtime/page/index.ts')
const output = join(root, 'dist/runtime/engine-runtime.js')
// The bundle imports page modules of several stages (runtime, fonts, media, compose): watch them all.
const sources = [join(root, 'src/lib')]

function newestSource(path: string): number {
  const info = statSync(path)
  if (!info.isDirectory()) return info.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))))
}

/**
 * `npm test` builds first; a single test file run on its own may find the page runtime missing or
 * older than its sources. Rebuild it then, with the same esbuild settings as scripts/build.mjs,
 * and swap it in atomically so parallel test files never read half a file.
 */
export async function ensureRuntimeBundle(): Promise<void> {
  const newest = Math.max(...sources.map(newestSource))
  if (existsSync(output) && statSync(output).mtimeMs >= newest) return
  const result = await build({entryPoints: [entry], bundle: true, format: 'iife', target: 'chrome120', minify: false, legalComments: 'none', write: false})
  mkdirSync(dirname(output), {recursive: true})
  const temporary = `${output}.${process.pid}.tmp`
  writeFileSync(temporary, result.outputFiles[0].contents)
  renameSync(temporary, output)
}
