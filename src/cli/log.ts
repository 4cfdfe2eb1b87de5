import {EngineError} from '../lib/errors/engine-error.js'
import {terminalText} from './terminal-text.js'
/**
 * The CLI's diagnostics: warnings, notices and debug detail go to stderr, filtered by one log
 * level for the whole process, so that stdout carries only results. The level is known before any
 * command parses its flags (plugin hooks run first): `--log-level <level>` or `--verbose` on the
 * command line, else ENGINE_LOG_LEVEL (a value that is no level is an error, as the flag's is), else `info`.
 */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export const LOG_LEVEL_ENV = 'ENGINE_LOG_LEVEL'

/** The flags every command takes for the log level (read before parsing; not options of any command). */
export const LOG_FLAGS: readonly string[] = ['log-level', 'verbose']

let current: LogLevel = 'info'

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value)
}

/** The level a command line asks for (flags before `--` only), else the environment's, else info. */
export function logLevelFrom(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): LogLevel {
  let level: LogLevel | undefined
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === '--') break
    if (arg === '--verbose') level = 'debug'
    const value = arg === '--log-level' ? argv[index + 1] : arg.startsWith('--log-level=') ? arg.slice('--log-level='.length) : undefined
    if (isLogLevel(value)) level = value
  }
  if (level) return level
  const fromEnv = env[LOG_LEVEL_ENV]
  if (fromEnv === undefined || fromEnv === '') return 'info'
  if (isLogLevel(fromEnv)) return fromEnv
  // Refused as the flag is: a level nobody recognises must not quietly mean info.
  throw new EngineError('INVALID_CONFIG', `${LOG_LEVEL_ENV} must be ${LOG_LEVELS.slice(0, -1).join(', ')} or ${LOG_LEVELS.at(-1)}, not "${fromEnv}"; fix it or unset it`, {
    field: LOG_LEVEL_ENV,
    value: fromEnv,
    allowed: [...LOG_LEVELS],
  })
}

/**
 * The command line without the log flags, for commands that do not declare them (oclif's plugins,
 * help and autocomplete), which would refuse them as unknown: the level is already set by then.
 */
export function withoutLogFlags(argv: readonly string[]): string[] {
  const kept: string[] = []
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === '--') return [...kept, ...argv.slice(index)]
    if (arg === '--log-level') index++
    else if (arg !== '--verbose' && !arg.startsWith('--log-level=')) kept.push(arg)
  }
  return kept
}

export function setLogLevel(level: LogLevel): void {
  current = level
}

export function logLevel(): LogLevel {
  return current
}

export function logs(level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(current)
}

/** One line on stderr: `warning: …`; `detail` (a stack, say) follows indented at debug level. */
export function warn(message: string, detail?: string): void {
  if (!logs('warn')) return
  process.stderr.write(terminalText(`warning: ${message}`) + '\n')
  if (detail) debug(detail)
}

export function info(message: string): void {
  if (logs('info')) process.stderr.write(terminalText(message) + '\n')
}

export function debug(message: string): void {
  if (logs('debug')) process.stderr.write(terminalText(message).replace(/^/gm, '  ') + '\n')
}
