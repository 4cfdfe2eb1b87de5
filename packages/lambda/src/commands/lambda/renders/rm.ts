import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags, stateMachineFlag} from '../../../cli/lambda-flags.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {removeRender} from '../../../lib/lambda/remove-render.js'

export default class LambdaRendersRm extends BaseCommand {
  static override summary = 'Delete a serverless render: its output, poster, scratch and records'
  static override description =
    'For a render that has ended (succeeded, failed, cancelled or timed out). A running render is refused: `engine lambda cancel` it first. ' +
    'The output is deleted wherever --output-key put it, unless --keep-output. The records go last, so a removal cut short can be run again.'
  static override examples = ['<%= config.bin %> lambda renders rm mwxileqx-3b73d95040', '<%= config.bin %> lambda renders rm mwxileqx-3b73d95040 --keep-output --json']
  static override args = {renderId: Args.string({description: 'the render id, as `lambda renders ls` lists it', required: true})}
  static override flags = {
    'keep-output': Flags.boolean({description: 'keep the output and poster; remove only the records and scratch'}),
    json: Flags.boolean({description: 'print what was removed as JSON'}),
    ...stackFlags,
    ...stateMachineFlag,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaRendersRm)
    const bucketName = required(flags.bucket, 'bucket', BUCKET_ENV)
    const removed = await removeRender({
      renderId: args.renderId,
      bucketName,
      keepOutput: flags['keep-output'],
      stateMachineArn: flags['state-machine-arn'],
      endpoint: flags.endpoint,
      region: flags.region,
    })
    if (flags.json) {
      this.log(JSON.stringify(removed))
      return
    }
    const output = removed.outputKey ? ` with its output ${removed.outputKey}` : ''
    this.log(`Removed render ${removed.renderId}${output} (${removed.objectsDeleted} objects) from s3://${removed.bucketName}/`)
  }
}
