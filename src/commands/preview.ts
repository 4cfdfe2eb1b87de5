import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'

export default class Preview extends BaseCommand {
  static override summary = 'Open a composition in a browser with a player and a variables editor'
  static override examples = ['<%= config.bin %> preview examples/hello/index.html --port 3000 --no-open']
  static override args = {composition: Args.string({description: 'composition HTML file', required: true})}
  static override flags = {
    port: Flags.integer({description: 'port of the preview server', default: 3000}),
    open: Flags.boolean({description: 'open the default browser', default: true, allowNo: true}),
  }

  async run(): Promise<void> {
    await this.parse(Preview)
    this.notImplemented('engine preview', 'issue "Preview with a variables editor"')
  }
}
