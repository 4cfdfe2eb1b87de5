import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {chunkTuningFlags, lambdaSizeFlags} from '../../cli/lambda-flags.js'

export default class LambdaRender extends BaseCommand {
  static override summary = 'Render one video on the serverless stack'
  static override examples = [
    '<%= config.bin %> lambda render ./my-project --variables \'{"name":"Ada"}\' --output-key out/ada.mp4 --wait',
  ]
  static override args = {projectDir: Args.string({description: 'project directory', required: true})}
  static override flags = {
    'site-id': Flags.string({description: 'use an uploaded site instead of uploading the project'}),
    variables: Flags.string({description: 'variable overrides as JSON object text'}),
    'output-key': Flags.string({description: 'storage key of the result'}),
    wait: Flags.boolean({description: 'wait for the render to finish'}),
    ...lambdaSizeFlags,
    ...chunkTuningFlags,
  }

  async run(): Promise<void> {
    await this.parse(LambdaRender)
    this.notImplemented('engine lambda render', 'issue "Serverless stack"')
  }
}
