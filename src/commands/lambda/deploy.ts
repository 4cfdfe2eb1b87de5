import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'

export default class LambdaDeploy extends BaseCommand {
  static override summary = 'Create or update the serverless stack (once per account and region)'
  static override examples = ['<%= config.bin %> lambda deploy --concurrency=64 --memory 10240']
  static override flags = {
    concurrency: Flags.integer({description: 'reserved concurrency of the render function', min: 1}),
    memory: Flags.integer({description: 'function memory in MB', default: 10240, min: 2048, max: 10240}),
    region: Flags.string({description: 'AWS region (default: from the environment)'}),
  }

  async run(): Promise<void> {
    await this.parse(LambdaDeploy)
    this.notImplemented('engine lambda deploy', 'issue "Serverless stack"')
  }
}
