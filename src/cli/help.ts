import {Help, type Command} from '@oclif/core'
import {listFormats} from '../lib/encode/format-registry.js'
import {companionInstallHint, COMPANIONS} from '../lib/config/companions.js'
import {missingCompanion} from './companions.js'
import {unknownCommandError} from './unknown-command.js'

/**
 * oclif's help, with `--format` showing the formats registered in this run (built-ins and those of
 * installed plugins: the init hook has registered them) instead of a list frozen at build time, and
 * the topic of a companion package that is not installed (`engine lambda --help`) explained with
 * its install command, as running one of its commands does (exit 127). The root help lists the
 * companions that are not installed, so that `engine help` still says that `engine lambda` exists.
 */
export default class EngineHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    const subject = argv.find((word) => !word.startsWith('-'))?.split(':')[0]
    const companion = missingCompanion(subject, this.config)
    if (!companion) {
      try {
        return await super.showHelp(argv)
      } catch (error) {
        // oclif's "Command lambda:rendr not found." names its internal id and suggests nothing:
        // the same line as running the unknown command says instead.
        if (!/^Command \S+ not found\.$/.test((error as Error).message)) throw error
      }
    }
    const typed = argv.filter((word) => !word.startsWith('-') && word !== 'help').flatMap((word) => word.split(':'))
    const error = unknownCommandError(typed, this.config)
    process.stderr.write(`error [${error.code}]: ${error.message}\n`)
    process.exitCode = 127
  }

  protected override async showRootHelp(): Promise<void> {
    await super.showRootHelp()
    const missing = COMPANIONS.filter((companion) => missingCompanion(companion.topic, this.config))
    if (missing.length === 0) return
    const rows = missing.map((companion): [string, string] => [companion.topic, `${companion.what}; install with ${companionInstallHint(companion, this.config.bin)}`])
    this.log('')
    this.log(this.section('NOT INSTALLED', rows))
  }

  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    const format = command.flags.format
    if (format?.type !== 'option') return super.showCommandHelp(command)
    const options = listFormats().map((plugin) => plugin.name)
    return super.showCommandHelp({...command, flags: {...command.flags, format: {...format, options}}})
  }
}
