import {Config, execute} from '@oclif/core'
import {fileURLToPath} from 'node:url'
import {toEngineError} from '../lib/errors/engine-error.js'
import {registerHostPackage} from '../lib/sandbox/host-package.js'
import {packageRoot} from '../lib/sandbox/package-root.js'
import {companionsBeside} from './companions.js'
import {logLevelFrom, setLogLevel, withoutLogFlags} from './log.js'
import {pluginInstallArgs} from './plugin-install-args.js'
import {pluginLinkArgs} from './plugin-link-args.js'
import {containPluginHooks} from './plugin-hooks/contain-plugin-hooks.js'
import {pluginHookPolicy} from './plugin-hooks/hook-policy.js'
import {terminalText} from './terminal-text.js'
import {asksVersionJson, versionJson} from './version-json.js'
import {applyV8Flags} from './v8-flags.js'

/** Commands of oclif's own plugins: they do not extend BaseCommand, so they lack the log flags. */
const OCLIF_TOPICS = new Set(['plugins', 'help', 'autocomplete'])

/**
 * Runs the `engine` command line (bin/run.js): the log level and what plugins may do are settled
 * before oclif loads anything, and when the command is done the process ends, so that nothing a
 * plugin left behind (a timer, a socket, a hook that never answered) keeps it running. A reader
 * that stops reading (`engine … | head`) ends it quietly.
 */
export async function startCli(binUrl: string, commandLine: string[] = process.argv.slice(2)): Promise<never> {
  let argv: string[]
  try {
    argv = pluginInstallArgs(commandLine)
  } catch (error) {
    return failBeforeCommand(error, commandLine, 2)
  }
  const link = pluginLinkArgs(argv)
  argv = link.argv
  try {
    applyV8Flags()
    setLogLevel(logLevelFrom(argv))
  } catch (error) {
    return failBeforeCommand(error, argv, 1)
  }
  if (OCLIF_TOPICS.has((argv[0] ?? '').split(':')[0])) argv = withoutLogFlags(argv)
  registerHostPackage()
  const policy = pluginHookPolicy(argv)
  containPluginHooks(policy)
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw error
    })
  }
  const config = await loadConfig({root: fileURLToPath(binUrl), userPlugins: policy.loadUserPlugins, devPlugins: companionsBeside(packageRoot())})
  if (asksVersionJson(argv)) process.stdout.write(versionJson(config) + '\n')
  else await execute({args: argv, loadOptions: config})
  if (link.notice && !process.exitCode) process.stderr.write(terminalText(`warning: ${link.notice}`) + '\n')
  await Promise.all([drained(process.stdout), drained(process.stderr)])
  process.exit()
}

/**
 * oclif loads dev plugins only when NODE_ENV is development or test. In a checkout the companions
 * are dev plugins installed beside the core, and `node bin/run.js lambda …` must find them whatever
 * NODE_ENV says, so the configuration is loaded as in development there, and NODE_ENV is put back
 * before any command or child process sees it.
 */
async function loadConfig(options: {root: string; userPlugins: boolean; devPlugins: boolean}): Promise<Config> {
  if (!options.devPlugins) return Config.load(options)
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = nodeEnv === 'test' ? 'test' : 'development'
  try {
    return await Config.load(options)
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
}

/** An error found before any command runs, printed as a command prints its errors (one JSON object with --json). */
function failBeforeCommand(error: unknown, argv: readonly string[], code: number): never {
  const engineError = toEngineError(error)
  if (argv.includes('--json')) process.stdout.write(JSON.stringify({type: 'error', error: engineError.toJSON()}) + '\n')
  else process.stderr.write(terminalText(`error [${engineError.code}]: ${engineError.message}`) + '\n')
  process.exit(code)
}

function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve()
    else stream.write('', () => resolve())
  })
}
