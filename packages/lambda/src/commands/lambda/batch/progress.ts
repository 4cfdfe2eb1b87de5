import {Args, Flags} from '@oclif/core'
import {setTimeout as sleep} from 'node:timers/promises'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags} from '../../../cli/lambda-flags.js'
import {batchProgressLine} from '../../../cli/lambda-batch-text.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {getBatchProgress} from '../../../lib/lambda/batch/batch-progress.js'

export default class LambdaBatchProgress extends BaseCommand {
  static override summary = 'Report where a serverless batch stands'
  static override description =
    'Rows pending, running, succeeded and failed (from the batch workflow\'s Distributed Map, or its manifest once a run ended), frames, rows per minute, an ETA and the cost so far ' +
    '(estimated from the exact cost of a few finished renders; S3 not included). --watch repeats it until the batch ends.'
  static override examples = ['<%= config.bin %> lambda batch progress lx2k9a1b-0f3c2a', '<%= config.bin %> lambda batch progress lx2k9a1b-0f3c2a --watch', '<%= config.bin %> lambda batch progress lx2k9a1b-0f3c2a --json']
  static override args = {batchId: Args.string({description: 'the batch id render-batch printed', required: true})}
  static override flags = {
    json: Flags.boolean({description: 'machine-readable output (with --watch: one object per line)'}),
    watch: Flags.boolean({description: 'report again every --interval seconds until the batch ends'}),
    interval: Flags.integer({description: 'seconds between reports with --watch', default: 5, min: 1}),
    ...stackFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaBatchProgress)
    const options = {batchId: args.batchId, bucketName: required(flags.bucket, 'bucket', BUCKET_ENV), endpoint: flags.endpoint, region: flags.region}
    for (;;) {
      const progress = await getBatchProgress(options)
      this.log(flags.json ? JSON.stringify(progress, null, flags.watch ? undefined : 2) : batchProgressLine(progress))
      if (!flags.watch || progress.status !== 'RUNNING') return
      await sleep(flags.interval * 1000)
    }
  }
}
