import type {Hook} from '@oclif/core'
import {unknownCommandError} from '../../cli/unknown-command.js'

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
  const error = unknownCommandError(typed.length > 0 ? typed : [options.id], options.config)
  if (words.includes('--json')) process.stdout.write(JSON.stringify({type: 'error', error: error.toJSON()}) + '\n')
  else process.stderr.write(`error [${error.code}]: ${error.message}\n`)
  process.exitCode = 127
}

export default hook
