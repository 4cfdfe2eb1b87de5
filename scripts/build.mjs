// Compiles the TypeScript sources, bundles the in-page runtime into one classic script, and
// regenerates the oclif manifest, so that `bin/run.js` works straight after `npm run build`; then
// the same for the serverless companion (packages/lambda), which compiles against the core's
// declarations and so comes second.
import {execFileSync} from 'node:child_process'
import {rmSync, existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
rmSync(join(root, 'dist'), {recursive: true, force: true})
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
})

const runtimeEntry = join(root, 'src/lib/runtime/page/index.ts')
if (existsSync(runtimeEntry)) {
  await build({
    entryPoints: [runtimeEntry],
    outfile: join(root, 'dist/runtime/engine-runtime.js'),
    bundle: true,
    format: 'iife',
    target: 'chrome120',
    minify: false,
    legalComments: 'none',
  })
}

execFileSync(process.execPath, [join(root, 'scripts/generate-manifest.mjs')], {stdio: 'inherit'})

const companion = join(root, 'packages/lambda')
rmSync(join(companion, 'dist'), {recursive: true, force: true})
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(companion, 'tsconfig.json')], {stdio: 'inherit'})
execFileSync(process.execPath, [join(root, 'scripts/generate-manifest.mjs'), companion], {stdio: 'inherit'})
