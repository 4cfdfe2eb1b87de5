import type {Interfaces} from '@oclif/core'
import {companionInstallCommand} from '../lib/config/companions.js'
import {EngineError} from '../lib/errors/engine-error.js'
import {missingCompanion, missingCompanionMessage} from './companions.js'
import {suggestCommand} from '../lib/errors/closest-name.js'

/**
 * The error for a command line that names no command (typed words, flags left out): a companion
 * that is not installed says how to install it; otherwise the command it most likely meant. The
 * same for `engine rendr`, `engine rendr --help` and `engine help rendr`.
 */
export function unknownCommandError(typed: string[], config: Interfaces.Config): EngineError {
  const bin = config.bin
  const companion = missingCompanion(typed[0], config)
  if (companion) {
    return new EngineError('UNKNOWN_COMMAND', missingCompanionMessage(companion, bin), {command: typed.join(' '), package: companion.name, install: companionInstallCommand(companion, bin)})
  }
  const visible = config.commands.filter((command) => !command.hidden)
  const ids = [...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)]
  const suggestion = suggestCommand(typed, ids)
  const unknown = suggestion ? typed.slice(0, typed.length - suggestion.rest.length).join(' ') : (typed[0] ?? '')
  const fix = suggestion ? `did you mean \`${[bin, ...suggestion.command, ...suggestion.rest].join(' ')}\`? (${bin} help lists them)` : `${bin} help lists them`
  return new EngineError('UNKNOWN_COMMAND', `"${unknown}" is not an ${bin} command; ${fix}`, {
    command: unknown,
    ...(suggestion && {suggestion: suggestion.command.join(' ')}),
  })
}
