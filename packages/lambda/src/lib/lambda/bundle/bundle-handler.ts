import {existsSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {build, type Metafile, type Plugin} from 'esbuild'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

/** Packages the handler loads from files at run time, next to handler.mjs in node_modules. */
export const EXTERNAL_PACKAGES = ['@sparticuz/chromium'] as const
/** Built by `npm run build` from packages/lambda/src/lib/lambda/lambda-entry.ts. */
const ENTRY = join('dist', 'src', 'lib', 'lambda', 'lambda-entry.js')

// Bundled CommonJS modules call require() for Node's built-ins and read __dirname; an ES module
// has neither, so the bundle defines them once at the top.
const BANNER = [
  "import {createRequire as __engineCreateRequire} from 'node:module';",
  "import {fileURLToPath as __engineFileURLToPath} from 'node:url';",
  'const require = __engineCreateRequire(import.meta.url);',
  'const __filename = __engineFileURLToPath(import.meta.url);',
  "const __dirname = __engineFileURLToPath(new URL('.', import.meta.url));",
].join('\n')

export interface BundledHandler {
  /** Bytes each package contributed to handler.mjs (before minification), "(engine)" for our code. */
  packages: Map<string, number>
}

/**
 * esbuild: the handler and everything it imports, but the external packages, into one ES module.
 * `packageRoot` is the companion's (the handler), `engineRoot` the engine's it imports.
 */
export async function bundleHandler(packageRoot: string, engineRoot: string, outfile: string): Promise<BundledHandler> {
  const entry = join(packageRoot, ENTRY)
  if (!existsSync(entry)) {
    throw new EngineError('BUNDLE_FAILED', `${entry} is missing: run \`npm run build\` first (it compiles the handler the bundle starts from)`, {entry})
  }
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: [...EXTERNAL_PACKAGES],
    plugins: [engineInternals(engineRoot), vendorSources(engineRoot)],
    minify: true,
    keepNames: true,
    legalComments: 'external',
    banner: {js: BANNER},
    metafile: true,
    logLevel: 'silent',
  }).catch((error: unknown) => {
    throw new EngineError('BUNDLE_FAILED', `bundling the handler failed: ${error instanceof Error ? error.message : String(error)}`, undefined, {cause: error})
  })
  return {packages: packagesOf(result.metafile)}
}

/**
 * The engine's `internal/*` export, resolved in the engine that runs (as the CLI resolves it for the
 * companion): a checkout or a plugin directory has no html-video-engine in node_modules.
 */
function engineInternals(engineRoot: string): Plugin {
  return {
    name: 'engine-internals',
    setup(build) {
      build.onResolve({filter: /^html-video-engine\/internal\//}, (args) => ({path: join(engineRoot, 'dist', 'src', args.path.slice('html-video-engine/internal/'.length))}))
    },
  }
}

/**
 * The core's build replaces its vendor modules with ready-made bundles, which would hide from
 * esbuild (and from the report) which packages they hold: the handler takes their sources instead,
 * which re-export the packages themselves.
 */
function vendorSources(engineRoot: string): Plugin {
  return {
    name: 'engine-vendor-sources',
    setup(build) {
      build.onResolve({filter: /\/vendor\/[a-z-]+\.js$/}, (args) => {
        const file = join(args.resolveDir, args.path)
        const vendorDir = join(engineRoot, 'dist', 'src', 'lib', 'vendor')
        return dirname(file) === vendorDir ? {path: join(engineRoot, 'src', 'lib', 'vendor', basename(file).replace(/\.js$/, '.ts'))} : undefined
      })
    },
  }
}

function packagesOf(metafile: Metafile): Map<string, number> {
  const sizes = new Map<string, number>()
  for (const [path, input] of Object.entries(metafile.inputs)) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)
    const name = match ? match[1] : '(engine)'
    sizes.set(name, (sizes.get(name) ?? 0) + input.bytes)
  }
  return sizes
}
