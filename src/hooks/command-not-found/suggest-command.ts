import type {Hook, Interfaces} from '@oclif/core'
import {missingCompanion, missingCompanionMessage} from '../../cli/companions.js'
import {suggestCommand} from '../../cli/suggest.js'
import {companionInstallCommand} from '../../lib/config/companions.js'
import {EngineError} from '../../lib/errors/engine-error.js'

/**
 * An unknown command: one line naming it and, when a command is close, the command line it most
 * likely meant, the same whether or not a terminal is attached (no prompt: a script must not hang
 * on one); a command of a companion package that is not installed (`engine lambda …`) says how to
 * install it. With --json, one error object on stdout. Exit 127, as a shell says for a command it
 * cannot find.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const words = [...options.id.split(':'), ...(options.argv ?? [])]
  const typed = words.filter((word) => !word.startsWith('-'))
  const bin = options.config.bin
  const error = companionError(typed, options.config, bin) ?? unknownCommandError(typed, options, bin)
  if (words.includes('--json')) process.stdout.write(JSON.stringify({type: 'error', error: error.toJSON()}) + '\n')
  else process.stderr.write(`error [${error.code}]: ${error.message}\n`)
  process.exitCode = 127
}

function companionError(typed: string[], config: Interfaces.Config, bin: string): EngineError | undefined {
  const companion = missingCompanion(typed[0], config)
  if (!companion) return undefined
  return new EngineError('UNKNOWN_COMMAND', missingCompanionMessage(companion, bin), {command: typed.join(' '), package: companion.name, install: companionInstallCommand(companion, bin)})
}

function unknownCommandError(typed: string[], options: Parameters<Hook.CommandNotFound>[0], bin: string): EngineError {
  const visible = options.config.commands.filter((command) => !command.hidden)
  const ids = [...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)]
  const suggestion = suggestCommand(typed, ids)
  const unknown = suggestion ? typed.slice(0, typed.length - suggestion.rest.length).join(' ') : (typed[0] ?? options.id)
  const fix = suggestion ? `did you mean \`${[bin, ...suggestion.command, ...suggestion.rest].join(' ')}\`? (${bin} help lists them)` : `${bin} help lists them`
  return new EngineError('UNKNOWN_COMMAND', `"${unknown}" is not an ${bin} command; ${fix}`, {
    command: unknown,
    ...(suggestion && {suggestion: suggestion.command.join(' ')}),
  })
}

export default hook
