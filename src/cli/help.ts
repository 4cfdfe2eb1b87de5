import {Help, type Command} from '@oclif/core'
import {listFormats} from '../lib/encode/format-registry.js'

/**
 * oclif's help, with `--format` showing the formats registered in this run (built-ins and those of
 * installed plugins: the init hook has registered them) instead of a list frozen at build time.
 */
export default class EngineHelp extends Help {
  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    const format = command.flags.format
    if (format?.type !== 'option') return super.showCommandHelp(command)
    const options = listFormats().map((plugin) => plugin.name)
    return super.showCommandHelp({...command, flags: {...command.flags, format: {...format, options}}})
  }
}
