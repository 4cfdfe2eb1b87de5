import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'

export default class LambdaSitesCreate extends BaseCommand {
  static override summary = 'Upload a project once and print its content-addressed Site ID'
  static override examples = ['<%= config.bin %> lambda sites create ./my-project']
  static override args = {projectDir: Args.string({description: 'project directory', required: true})}

  async run(): Promise<void> {
    await this.parse(LambdaSitesCreate)
    this.notImplemented('engine lambda sites create', 'issue "Serverless stack"')
  }
}
