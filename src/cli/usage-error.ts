import {Errors} from '@oclif/core'
import {EngineError} from '../lib/errors/engine-error.js'
import {oneOf} from '../lib/errors/one-of.js'
import {closest} from '../lib/errors/closest-name.js'

const HELP_SUFFIX = /\nSee more help with --help$/

export interface UsageError {
  error: EngineError
  /** 1 for a bad value (as the engine's own validation), 2 for a command line of the wrong shape. */
  exitCode: 1 | 2
}

/**
 * oclif's parse errors (a value outside a flag's choices, an unknown flag, a missing argument),
 * rewritten in the engine's voice as INVALID_FLAG errors naming the flag, the value and the fix.
 * An unknown flag close to one of the command's (`--fsp`) names the one it likely meant.
 * Undefined for anything that is not a parse error.
 */
export function usageError(error: Error, commandId: string, flagNames: readonly string[] = []): UsageError | undefined {
  const translated = translate(error, commandId, flagNames)
  if (!translated) return undefined
  return {error: translated, exitCode: error instanceof Errors.CLIError && /^Expected --/.test(error.message) ? 1 : 2}
}

function translate(error: Error, commandId: string, flagNames: readonly string[]): EngineError | undefined {
  if (!(error instanceof Errors.CLIError) || !('parse' in error)) return undefined
  const text = error.message.replace(HELP_SUFFIX, '')
  const help = `see engine ${commandId.replaceAll(':', ' ')} --help`.replace(/ +--help$/, ' --help')

  const choice = /^Expected --([\w-]+)=([\s\S]*) to be one of: (.*)$/.exec(text)
  if (choice) {
    const [, flag, value, choices] = choice
    return new EngineError('INVALID_FLAG', `--${flag} must be ${oneOf(choices.split(', '))}, not "${value}"`, {flag: `--${flag}`, value, choices: choices.split(', ')})
  }
  const unknown = /^Nonexistent flags?: (.*)$/.exec(text)
  if (unknown) {
    const flags = unknown[1].split(', ')
    const meant = flags.map((flag) => closest(flag.replace(/^-+/, '').split('=')[0], flagNames)).map((name) => name && `--${name}`)
    const suggestion = meant.some(Boolean) ? ` (did you mean ${oneOf(meant.filter((name): name is string => Boolean(name))).replace(' or ', ' and ')}?)` : ''
    return new EngineError('INVALID_FLAG', `${oneOf(flags).replace(' or ', ' and ')} ${flags.length > 1 ? 'are not flags' : 'is not a flag'} of this command${suggestion}: ${help}`, {
      flags,
      ...(suggestion && {suggestions: meant}),
    })
  }
  const missing = /^Missing \d+ required args?:\n([\s\S]*)$/.exec(text)
  if (missing) {
    // The arguments, one a line, up to a blank line (oclif may add a note on flags that take several values).
    const names = missing[1].split('\n\n')[0].split('\n').map((line) => line.trim().split(/\s+/)[0]).filter(Boolean)
    return new EngineError('INVALID_FLAG', `missing the ${oneOf(names).replace(' or ', ' and ')} argument${names.length > 1 ? 's' : ''}: ${help}`, {arguments: names})
  }
  const unexpected = /^Unexpected arguments?: (.*)$/.exec(text)
  if (unexpected) {
    return new EngineError('INVALID_FLAG', `unexpected argument${unexpected[1].includes(', ') ? 's' : ''} ${unexpected[1]}: ${help}`, {arguments: unexpected[1].split(', ')})
  }
  return new EngineError('INVALID_FLAG', `${text.replace(/^The following errors? occurred:\s*/, '').replaceAll(/\u001B\[[\d;]*m/g, '').trim()}: ${help}`)
}
