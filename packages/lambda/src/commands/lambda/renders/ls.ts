import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags, stateMachineFlag} from '../../../cli/lambda-flags.js'
import {renderLines} from '../../../cli/lambda-list-text.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {DEFAULT_RENDER_LIST_LIMIT, listRenders, MAX_RENDER_LIST_LIMIT} from '../../../lib/lambda/list-renders.js'

export default class LambdaRendersLs extends BaseCommand {
  static override summary = 'List recent serverless renders and their status'
  static override description =
    'Newest first, from the records each render keeps in the bucket: running, succeeded (output and size), failed (the error) or cancelled. ' +
    'With the state machine known (ENGINE_SFN_ARN), a render without an end record is checked against its execution. ' +
    'A render shows once its plan step has run, about a second after it starts.'
  static override examples = ['<%= config.bin %> lambda renders ls', '<%= config.bin %> lambda renders ls --limit 5 --json']
  static override flags = {
    limit: Flags.integer({description: `how many of the newest renders (default ${DEFAULT_RENDER_LIST_LIMIT}, at most ${MAX_RENDER_LIST_LIMIT})`}),
    json: Flags.boolean({description: 'print the renders as a JSON array'}),
    ...stackFlags,
    ...stateMachineFlag,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaRendersLs)
    const renders = await listRenders({
      bucketName: required(flags.bucket, 'bucket', BUCKET_ENV),
      limit: flags.limit,
      stateMachineArn: flags['state-machine-arn'],
      endpoint: flags.endpoint,
      region: flags.region,
    })
    this.log(flags.json ? JSON.stringify(renders) : renderLines(renders).join('\n'))
  }
}
