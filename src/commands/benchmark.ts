import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'

export default class Benchmark extends BaseCommand {
  static override summary = 'Find render settings suited to this machine'
  static override examples = ['<%= config.bin %> benchmark --json']
  static override args = {composition: Args.string({description: 'composition to measure (default: a built-in reference)'})}
  static override flags = {
    json: Flags.boolean({description: 'machine-readable output'}),
    save: Flags.boolean({description: 'write the recommendation to the config file'}),
  }

  async run(): Promise<void> {
    await this.parse(Benchmark)
    this.notImplemented('engine benchmark', 'issue "Preview with a variables editor, and engine benchmark"')
  }
}
