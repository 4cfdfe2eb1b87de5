/** Set to 1 to run engine with no user plugin at all: none is loaded, none of their code runs. */
export const NO_PLUGINS_ENV = 'ENGINE_NO_PLUGINS'
/** Seconds a plugin's hook may take before it is reported as failed (default 10). */
export const HOOK_TIMEOUT_ENV = 'ENGINE_PLUGIN_TIMEOUT'
const DEFAULT_TIMEOUT_MS = 10_000

export interface PluginHookPolicy {
  /** Load installed and linked plugins (their commands and manifests). */
  loadUserPlugins: boolean
  /** Run their hooks; off for the commands that must work whatever a plugin does. */
  runUserHooks: boolean
  /** How long one hook of a user plugin may run. */
  timeoutMs: number
}

/** Commands that repair or describe the installation: a broken plugin must never stop them. */
const SAFE_TOPICS = new Set(['plugins', 'help', 'version', 'autocomplete', 'config'])
const HELP_OR_VERSION = new Set(['-h', '--help', '-v', '--version'])

/**
 * What plugins may do in this run, decided from the command line before anything loads. Plugin
 * hooks never run for `plugins …` (so a broken plugin can always be removed), help, the version,
 * `config` and `doctor --safe`; ENGINE_NO_PLUGINS=1 leaves user plugins out entirely.
 */
export function pluginHookPolicy(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): PluginHookPolicy {
  const timeoutMs = hookTimeoutMs(env)
  if (env[NO_PLUGINS_ENV] === '1') return {loadUserPlugins: false, runUserHooks: false, timeoutMs}
  const flags = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length)
  const command = (argv[0] ?? '').split(':')[0]
  const safe =
    argv.length === 0 ||
    SAFE_TOPICS.has(command) ||
    flags.some((arg) => HELP_OR_VERSION.has(arg)) ||
    (command === 'doctor' && flags.includes('--safe'))
  return {loadUserPlugins: true, runUserHooks: !safe || helpListsFormats(flags), timeoutMs}
}

/** Commands whose help lists the output formats, plugins' included (see EngineHelp). */
const FORMAT_COMMANDS = new Set(['render', 'lambda:render', 'lambda:render-batch', 'lambda:still'])

/**
 * Help of a command that lists the formats (`engine render --help`, `engine help render`) runs
 * the plugins' format hooks, so that the list has the formats they add: the hooks run contained
 * (under the timeout, a failure one warning line), and help still shows when one fails.
 */
function helpListsFormats(flags: readonly string[]): boolean {
  const asksHelp = flags[0] === 'help' || flags.some((arg) => arg === '-h' || arg === '--help')
  if (!asksHelp) return false
  const words = flags.filter((arg) => !arg.startsWith('-') && arg !== 'help').flatMap((arg) => arg.split(':'))
  return FORMAT_COMMANDS.has(words.slice(0, 2).join(':')) || FORMAT_COMMANDS.has(words[0] ?? '')
}

function hookTimeoutMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env[HOOK_TIMEOUT_ENV])
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_TIMEOUT_MS
}
