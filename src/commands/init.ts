import {Args, Flags} from '@oclif/core'
import {relative} from 'node:path'
import {BaseCommand} from '../cli/base-command.js'
import {initProject} from '../lib/init/init-project.js'
import {DEFAULT_TEMPLATE} from '../lib/init/project-templates.js'

export default class Init extends BaseCommand {
  static override summary = 'Start a project: a composition with variables, sample rows, a config file and a README'
  static override description = `Templates: ${DEFAULT_TEMPLATE} (a title card with a sub-composition; the default) and lower-third (a name plate on a transparent background). Nothing is overwritten without --force.`
  static override examples = ['<%= config.bin %> init my-video', '<%= config.bin %> init plates --template lower-third --json']
  static override args = {directory: Args.string({description: 'folder for the project (created when absent; default: the current folder)', default: '.'})}
  static override flags = {
    template: Flags.string({char: 't', description: `example project to start from (default ${DEFAULT_TEMPLATE})`}),
    force: Flags.boolean({description: 'replace files of the same name that are already in the folder'}),
    json: Flags.boolean({description: 'print {directory, template, files, next} as JSON'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Init)
    const result = await initProject({directory: args.directory, template: flags.template, force: flags.force})
    if (flags.json) {
      this.log(JSON.stringify(result))
      return
    }
    const where = relative(process.cwd(), result.directory) || '.'
    this.log(`Created a ${result.template} project in ${where}: ${result.files.join(', ')}`)
    this.log('\nNext:')
    for (const command of result.next) this.log(`  ${command}`)
  }
}
