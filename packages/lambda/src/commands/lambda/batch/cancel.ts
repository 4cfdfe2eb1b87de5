import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags} from '../../../cli/lambda-flags.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {cancelBatch} from '../../../lib/lambda/batch/cancel-batch.js'

export default class LambdaBatchCancel extends BaseCommand {
  static override summary = 'Stop a serverless batch: no further row starts and the running renders are cancelled'
  static override description =
    'The running row renders are cancelled as `lambda cancel` does (their chunks stop, their scratch is deleted) and the batch manifest is written with every ended row\'s final status ' +
    '(cancelled rows fail with CANCELLED; rows never started count as missing). Rows that succeeded keep their outputs; `lambda render-batch --resume <id>` renders the others later.'
  static override examples = ['<%= config.bin %> lambda batch cancel lx2k9a1b-0f3c2a']
  static override args = {batchId: Args.string({description: 'the batch id render-batch printed', required: true})}
  static override flags = {
    json: Flags.boolean({description: 'machine-readable output'}),
    ...stackFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaBatchCancel)
    const cancelled = await cancelBatch({batchId: args.batchId, bucketName: required(flags.bucket, 'bucket', BUCKET_ENV), endpoint: flags.endpoint, region: flags.region})
    if (flags.json) this.log(JSON.stringify(cancelled))
    else {
      const {succeeded, failed, missing} = cancelled.counts
      const rows = `manifest written: ${succeeded} succeeded, ${failed} failed or cancelled, ${missing} never started`
      if (cancelled.stopped) this.log(`Cancelled batch ${cancelled.batchId} (run ${cancelled.run}): no further row starts; ${cancelled.rendersCancelled} running render(s) stopped; ${rows}`)
      else this.log(`Batch ${cancelled.batchId} (run ${cancelled.run}) had already ended; ${cancelled.rendersCancelled} render(s) of it were still running and are stopped; ${rows}`)
    }
  }
}
