import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {chunkTuningFlags, lambdaSizeFlags} from '../../cli/lambda-flags.js'

export default class LambdaRenderBatch extends BaseCommand {
  static override summary = 'Start one serverless render per line of a JSONL batch file'
  static override examples = ['<%= config.bin %> lambda render-batch ./my-project --batch rows.jsonl --max-concurrent 50 --json']
  static override args = {projectDir: Args.string({description: 'project directory', required: true})}
  static override flags = {
    batch: Flags.string({description: 'JSONL file: one {"outputKey", "variables"} object per line', required: true}),
    'max-concurrent': Flags.integer({description: 'workflow starts in flight at once', default: 50, min: 1}),
    'site-id': Flags.string({description: 'use an uploaded site (skips the upload)'}),
    json: Flags.boolean({description: 'print an array of result entries'}),
    'dry-run': Flags.boolean({description: 'start nothing; every entry reports would-invoke'}),
    ...lambdaSizeFlags,
    ...chunkTuningFlags,
  }

  async run(): Promise<void> {
    await this.parse(LambdaRenderBatch)
    this.notImplemented('engine lambda render-batch', 'issue "Serverless stack"')
  }
}
