// The configuration reference: every key of the render options schema (zod), its type from the
// schema's JSON Schema, its default, the flag that sets it and that flag's help text; where
// config files are searched; and the environment variables engine reads.
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {z} from 'zod'
import {loadCommands} from './cli-reference.mjs'
import {describeSchema} from './json-schema.mjs'
import {code, generatedHeader, table} from './markdown.mjs'

/** Keys no command has a flag for: described here. */
const KEYS_WITHOUT_FLAG = {
  maxConcurrentRenders: 'renders `engine serve` runs at once (its `--max-concurrent-renders`)',
}

/**
 * Environment variables that no flag declares. Each name must still occur in src/ (the test
 * fails otherwise), so that a variable engine stops reading leaves this list too.
 */
export const ENVIRONMENT = {
  ENGINE_CACHE_DIR: 'root of the caches: fonts, extracted video frames, downloads, the pinned browser (default `~/.cache/engine`)',
  ENGINE_DATA_DIR: 'where `engine plugins` installs plugins (default `~/.local/share/engine`)',
  ENGINE_CONFIG_DIR: "engine's user configuration folder, holding `settings.json` (default `~/.config/engine`)",
  ENGINE_FFMPEG_PATH: 'the ffmpeg executable to use',
  ENGINE_FFPROBE_PATH: 'the ffprobe executable to use',
  ENGINE_DOWNLOAD_CACHE_MAX: 'size of the download cache, such as `500M` or `4G` (default 4G); least recently used files go first',
  ENGINE_RENDER_CACHE: '`off` turns the render cache off for every render (like `--no-cache` everywhere); a path puts it there (default `$ENGINE_CACHE_DIR/renders`)',
  ENGINE_RENDER_CACHE_MAX: 'size of the render cache, such as `500M` or `10G` (default 5G); least recently used renders go first',
  ENGINE_HOST_RESOLVER_RULES: 'host-resolver rules for the sandbox, `MAP <host> <address>` separated by commas (tests and mirrors)',
  ENGINE_CONTAINER_RUNTIME: '`docker` or `podman`: the container runtime `--docker` uses',
  ENGINE_TRUST_PROJECT_CONFIG: '`1` trusts project config files (JavaScript configs and trusted-only keys), like `--trust-project-config`',
  ENGINE_GOOGLE_FONTS_API: 'another address for the Google Fonts API (a mirror)',
  ENGINE_LOCAL_TOKEN: 'the token `engine lambda local` prints; commands sign their requests to the local stack with it',
  ENGINE_BROWSER_PATH: 'the browser executable to capture with, like `--browser-path`',
  ENGINE_BROWSER: "which browsers a render may pick when no path is given: `auto` (default: engine's downloads, then the system's), `system` (the system's first) or `downloaded` (engine's downloads only, never a system browser)",
  ENGINE_AUTO_INSTALL: '`1`: a render (or still) downloads a missing browser or ffmpeg without asking, like `--yes`; `0`: never (see the getting-started guide)',
  ENGINE_BROWSER_MIRROR: 'base URL of a mirror of the Chrome for Testing downloads, for the pinned browser (`<base>/<version>/linux64/chrome-headless-shell-linux64.zip`)',
  ENGINE_NPM_REGISTRY: "npm registry the static ffmpeg/ffprobe and the function Chromium are downloaded from (default: npm's `registry` setting, else registry.npmjs.org); the downloads use npm's `cafile`, `proxy`, `https-proxy`, `noproxy` and `strict-ssl` too",
  ENGINE_SERVER_TOKEN: 'the bearer token of `engine serve` (like its `--token`), and the token `engine render --server` sends',
  ENGINE_WEBHOOK_SECRET: 'the key that signs webhook calls, like `--webhook-secret` (`engine render`, `engine serve`, `engine lambda render`)',
  ENGINE_NO_PLUGINS: '`1` loads no user plugin (only the built-in formats and encoders)',
  ENGINE_PLUGIN_TIMEOUT: "seconds a plugin's hook may take before it is abandoned with a warning (default 10)",
  ENGINE_LOG_LEVEL: 'diagnostics on stderr: `error`, `warn`, `info` (default) or `debug`, like `--log-level` (`--verbose` is `debug`); another value is an error',
  ENGINE_V8_FLAGS: "V8 flags for engine's own Node process, separated by spaces, such as `--no-opt` (less CPU for short runs; Node refuses most V8 flags in NODE_OPTIONS)",
  PRODUCER_MAX_CONCURRENT_RENDERS: "`engine serve`'s concurrency when `--max-concurrent-renders` is not given",
}

/** Every environment variable of ENVIRONMENT that src/ no longer mentions. */
export function staleEnvironmentNames(sourceText) {
  return Object.keys(ENVIRONMENT).filter((name) => !sourceText.includes(name))
}

/** Commands whose flag text describes a config key best, in that order; then the others. */
const DESCRIBING_COMMANDS = ['render', 'still', 'serve']

function flagIndex(root) {
  const byName = new Map()
  const rank = (id) => (DESCRIBING_COMMANDS.includes(id) ? DESCRIBING_COMMANDS.indexOf(id) : DESCRIBING_COMMANDS.length)
  const commands = loadCommands(root).filter((command) => !command.source.startsWith('@oclif/'))
  for (const command of commands.sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id))) {
    for (const flag of Object.values(command.flags ?? {})) {
      if (!byName.has(flag.name)) byName.set(flag.name, {flag, commands: []})
      byName.get(flag.name).commands.push(command.id.split(':').join(' '))
    }
  }
  return byName
}

export async function configReference(root) {
  const dist = (path) => import(pathToFileURL(join(root, 'dist/src/lib', path)).href)
  const {renderOptionsSchema, RENDER_DEFAULTS, flagName} = await dist('plan/render-options.js')
  const {CONFIG_SEARCH_PLACES, TRUSTED_ONLY_KEYS} = await dist('config/load-config.js')
  const schema = z.toJSONSchema(renderOptionsSchema, {io: 'input', unrepresentable: 'any'})
  const flags = flagIndex(root)
  const rows = Object.entries(schema.properties).map(([key, property]) => {
    const flagNameOf = flagName(key).slice(2)
    const known = flags.get(flagNameOf)
    const description = known ? known.flag.description : KEYS_WITHOUT_FLAG[key]
    if (description === undefined) throw new Error(`config key "${key}" has no flag to take its description from: describe it in scripts/docs/config-reference.mjs (KEYS_WITHOUT_FLAG)`)
    const def = RENDER_DEFAULTS[key]
    const trusted = TRUSTED_ONLY_KEYS[key] ? `. Only in a trusted config: it ${TRUSTED_ONLY_KEYS[key]}.` : ''
    return [code(key), describeSchema(property), def === undefined ? '' : code(JSON.stringify(def)), known ? code(`--${flagNameOf}`) : '', description + trusted]
  })
  const envRows = []
  for (const {flag, commands} of flags.values()) {
    if (flag.env) envRows.push([code(flag.env), `${flag.description} (${code(`--${flag.name}`)} of ${commands.map((c) => code(`engine ${c}`)).join(', ')}; the flag wins)`])
  }
  for (const [name, description] of Object.entries(ENVIRONMENT)) if (!envRows.some((row) => row[0] === code(name))) envRows.push([code(name), description])
  const unique = [...new Map(envRows.map((row) => [row[0], row])).values()].sort((a, b) => a[0].localeCompare(b[0]))
  const text = [
    generatedHeader('Configuration reference', "the render options schema (src/lib/plan/render-options.ts), src/lib/config/load-config.ts and the commands' flags"),
    'Defaults for any render flag can live in a config file; keys are the flags in camelCase, and a flag given on the command line wins.',
    '',
    '## Where engine looks',
    '',
    `In the working directory, then each folder above it up to the nearest one holding a \`package.json\` (the project), the first of these files found is used (\`package.json\` counts only with an \`"engine"\` key): ${CONFIG_SEARCH_PLACES.map(code).join(', ')}.`,
    '',
    `A project's config is data: a JavaScript config and the keys ${Object.keys(TRUSTED_ONLY_KEYS).map(code).join(', ')} are refused unless you trust the project (\`--trust-project-config\`, \`ENGINE_TRUST_PROJECT_CONFIG=1\`, or \`{"trustProjectConfig": true}\` in \`~/.config/engine/settings.json\`). An invalid value is an \`INVALID_CONFIG\` error naming the file and the key.`,
    '',
    '```json',
    '{ "fps": 60, "quality": "high", "workers": 2 }',
    '```',
    '',
    '## Keys',
    '',
    table(['Key', 'Type', 'Default', 'Flag', 'Meaning'], rows),
    '',
    '## Environment variables',
    '',
    table(['Variable', 'Meaning'], unique),
    '',
  ]
  return new Map([['configuration.md', text.join('\n')]])
}

