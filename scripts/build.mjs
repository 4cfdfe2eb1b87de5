// Compiles the TypeScript sources, bundles the in-page runtime into one classic script, replaces
// the vendor modules' output with bundles of the packages they re-export, and regenerates the
// oclif manifest, so that `bin/run.js` works straight after `npm run build`; then the same for the
// serverless companion (packages/lambda), which compiles against the core's declarations and so
// comes second.
import {execFileSync} from 'node:child_process'
import {existsSync, lstatSync, readdirSync, rmSync, symlinkSync} from 'node:fs'
import {createRequire} from 'node:module'
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

// Node loads a package of hundreds of small modules far slower than the same code in one file; the
// vendor modules (src/lib/vendor) are the only way in to such packages, so bundling them once here
// makes every process start cheaper without changing which code runs.
const vendorDir = join(root, 'dist/src/lib/vendor')
// cheerio's entry adds fromURL and stream decoding, which load an HTTP client (undici, 1.3 MB);
// `load`, all the vendor module re-exports, comes from the file the entry takes it from.
const requireFromRoot = createRequire(join(root, 'package.json'))
const cheerioLoadOnly = {
  name: 'cheerio-load-only',
  setup(build) {
    build.onResolve({filter: /^cheerio$/}, () => ({path: join(dirname(requireFromRoot.resolve('cheerio/package.json')), 'dist/esm/load-parse.js')}))
  },
}
for (const name of readdirSync(vendorDir).filter((file) => file.endsWith('.js'))) {
  rmSync(join(vendorDir, `${name}.map`), {force: true})
  await build({
    entryPoints: [join(root, 'src/lib/vendor', name.replace(/\.js$/, '.ts'))],
    outfile: join(vendorDir, name),
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // ws loads these native speed-ups only when they are installed.
    external: ['bufferutil', 'utf-8-validate'],
    // Bundled CommonJS calls require() for Node's built-ins, which an ES module lacks.
    banner: {js: "import {createRequire as __vendorCreateRequire} from 'node:module';\nconst require = __vendorCreateRequire(import.meta.url);"},
    plugins: [cheerioLoadOnly],
    legalComments: 'linked',
    logLevel: 'warning',
  })
}

execFileSync(process.execPath, [join(root, 'scripts/generate-manifest.mjs')], {stdio: 'inherit'})

const companion = join(root, 'packages/lambda')
rmSync(join(companion, 'dist'), {recursive: true, force: true})
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(companion, 'tsconfig.json')], {stdio: 'inherit'})
execFileSync(process.execPath, [join(root, 'scripts/generate-manifest.mjs'), companion], {stdio: 'inherit'})

// The companion imports the core by its package name, as a user's project installs the two side by
// side in node_modules; npm links the workspace's packages there but never the root package, so
// the checkout gets the same link, and `import('html-video-engine-lambda')` (packages/lambda/dist)
// finds this core from a checkout as it does from an install.
const coreLink = join(root, 'node_modules', 'html-video-engine')
if (existsSync(join(root, 'node_modules')) && !isLink(coreLink)) {
  rmSync(coreLink, {recursive: true, force: true})
  symlinkSync('..', coreLink, 'dir')
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}
