import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'

export default class LambdaProgress extends BaseCommand {
  static override summary = 'Report the progress of a serverless render'
  static override examples = ['<%= config.bin %> lambda progress arn:aws:states:eu-west-1:123456789012:execution:engine-render:abc']
  static override args = {render: Args.string({description: 'renderId or executionArn', required: true})}
  static override flags = {json: Flags.boolean({description: 'machine-readable output'})}

  async run(): Promise<void> {
    await this.parse(LambdaProgress)
    this.notImplemented('engine lambda progress', 'issue "Serverless stack"')
  }
}
