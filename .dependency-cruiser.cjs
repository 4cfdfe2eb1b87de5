// Import rules for `npm test` (scripts/check-dependencies.mjs). The engine is a pipeline of stage
// folders; each layer below may import only from its own layer and the layers under it, so a
// change to a low stage can never depend on a caller. Folders in one layer may import each other
// (they are peers), but no module may take part in an import cycle, type-only imports included.
//
// In-page code (`*/page/**`, `preview/client/**`) is bundled into the browser, not run by Node:
// it is held to the no-cycle rule but not to the layers.

/** The serverless companion (packages/lambda, its own npm package): the same layout, its own folders. */
const COMPANION = 'packages/lambda/src'

/** Top to bottom. Paths are relative to the repository root. */
const LAYERS = [
  {name: 'entry', folders: ['src/commands', 'src/hooks', `${COMPANION}/commands`, `${COMPANION}/hooks`]},
  {name: 'cli', folders: ['src/cli', `${COMPANION}/cli`]},
  // The package's entry modules: they alone wire the built-in plugins in.
  {name: 'package', files: ['src/lib/index.ts', 'src/lib/builtin-plugins.ts']},
  {name: 'plugins', folders: ['plugins']},
  {name: 'plugin-api', folders: ['src/plugin']},
  {name: 'doors', folders: ['src/lib/server', 'src/lib/server-client', `${COMPANION}/lib/lambda`, 'src/lib/container', 'src/lib/preview', 'src/lib/batch', 'src/lib/shard', 'src/lib/benchmark', 'src/lib/doctor', 'src/lib/config', 'src/lib/setup', 'src/lib/plugin-scaffold', 'src/lib/init']},
  // A still is a render of one frame; a render writes its poster frame as a still.
  {name: 'render', folders: ['src/lib/render', 'src/lib/still']},
  {name: 'stages', folders: ['src/lib/capture', 'src/lib/encode', 'src/lib/media', 'src/lib/lint', 'src/lib/profile', 'src/lib/notify', 'src/lib/render-cache']},
  {name: 'plan', folders: ['src/lib/plan', 'src/lib/runtime']},
  {name: 'model', folders: ['src/lib/compose', 'src/lib/variables', 'src/lib/fonts', 'src/lib/captions']},
  {name: 'base', folders: ['src/lib/browser', 'src/lib/sandbox', 'src/lib/errors', 'src/lib/files', 'src/lib/trace']},
  {name: 'vendor', folders: ['src/lib/vendor']},
]

/** Packages the build bundles into one file each (src/lib/vendor): their values are loaded only from there. */
const VENDORED = ['puppeteer-core', '@puppeteer/browsers', 'cheerio', 'postcss']

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const pathsOf = (layer) => [...(layer.folders ?? []).map((folder) => `^${escape(folder)}/`), ...(layer.files ?? []).map((file) => `^${escape(file)}$`)]
const IN_PAGE = ['/page/', '^src/lib/preview/client/']

const layerRules = LAYERS.slice(1).map((layer, index) => ({
  name: `no-upward-import-from-${layer.name}`,
  comment: `${layer.name} may not import from the layers above it (${LAYERS.slice(0, index + 1).map((above) => above.name).join(', ')})`,
  severity: 'error',
  from: {path: pathsOf(layer), pathNot: IN_PAGE},
  to: {path: LAYERS.slice(0, index + 1).flatMap(pathsOf)},
}))

/**
 * The function's entry modules wire plugins in like the package entries do, and only that may
 * reach above their layer: the handler registers the built-in plugins, the bundle's entry hands
 * the plugin API to the user's bundled plugins.
 */
const ENTRY_EXCEPTION = {from: `^${escape(COMPANION)}/lib/lambda/(handler|lambda-entry)\\.ts$`, to: '^src/(lib/builtin-plugins|plugin/api)\\.ts$'}

const withEntryException = (rule) => [
  {...rule, from: {...rule.from, pathNot: [...rule.from.pathNot, ENTRY_EXCEPTION.from]}},
  {...rule, name: `${rule.name}-entry`, from: {path: ENTRY_EXCEPTION.from}, to: {...rule.to, pathNot: ENTRY_EXCEPTION.to}},
]

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'an import cycle (type-only imports included) ties modules that should be layered',
      severity: 'error',
      from: {},
      to: {circular: true},
    },
    {
      name: 'core-does-not-import-the-companion',
      comment: 'the core package installs and runs without the serverless companion (packages/lambda)',
      severity: 'error',
      from: {path: '^(src|plugins)/'},
      to: {path: ['^packages/', 'html-video-engine-lambda']},
    },
    {
      name: 'companion-imports-the-core-by-its-exports',
      comment: "the companion is installed apart from the core: it reaches the core by the package's exports (html-video-engine/internal/…), never by a path into this checkout",
      severity: 'error',
      from: {path: `^${escape(COMPANION)}/`},
      to: {path: '^(src|plugins)/', dependencyTypesNot: ['aliased-tsconfig-paths']},
    },
    {
      name: 'folder-has-a-layer',
      comment: 'a new folder under src/ must be given a layer in .dependency-cruiser.cjs, or the layer rules would not see it',
      severity: 'error',
      from: {path: ['^src/', `^${escape(COMPANION)}/`], pathNot: [...LAYERS.flatMap(pathsOf), '^src/lib/[^/]+\\.ts$']},
      to: {},
    },
    {
      name: 'vendored-packages-through-vendor',
      comment: 'the build bundles these packages into src/lib/vendor; a value import elsewhere would load the many-file package beside the bundle (type-only imports are fine)',
      severity: 'error',
      from: {path: ['^src/', '^plugins/', `^${escape(COMPANION)}/`], pathNot: '^src/lib/vendor/'},
      to: {path: VENDORED.map((name) => `node_modules/${escape(name)}/`), dependencyTypesNot: ['type-only']},
    },
    {
      name: 'plugins-use-the-plugin-api',
      comment: 'built-in plugins are written like third-party ones: they import only the public plugin API',
      severity: 'error',
      from: {path: '^plugins/'},
      to: {path: '^src/', pathNot: '^src/plugin/'},
    },
    {
      name: 'core-does-not-import-plugins',
      comment: 'only the package entry modules register the built-in plugins',
      severity: 'error',
      from: {path: '^src/', pathNot: ['^src/lib/builtin-plugins\\.ts$']},
      to: {path: '^plugins/'},
    },
    ...layerRules.flatMap((rule) => (rule.name === 'no-upward-import-from-doors' ? withEntryException(rule) : [rule])),
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    exclude: {path: ['^dist/']},
    tsPreCompilationDeps: true,
    // tsconfig.json maps the companion's html-video-engine/internal/* imports to the core's
    // sources, so that the layer rules see through the package boundary.
    tsConfig: {fileName: 'tsconfig.json'},
    enhancedResolveOptions: {exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types']},
  },
}
