import {resolve} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags} from '../../../cli/lambda-flags.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {rebuildLambdaResults} from '../../../lib/lambda/batch/rebuild-lambda-results.js'

export default class LambdaBatchResults extends BaseCommand {
  static override summary = "Write a serverless batch's result sheet again from its records in the bucket"
  static override description =
    'Every line of the batch file with its outcome (the columns of a local batch\'s results.csv, formula cells escaped), from the manifest of its latest run, or from the row records of a run that is still going or was stopped. ' +
    'Without --results it replaces batches/<id>/results.csv in the bucket; with it, writes a local .csv or .jsonl.'
  static override examples = ['<%= config.bin %> lambda batch results lx2k9a1b-0f3c2a', '<%= config.bin %> lambda batch results lx2k9a1b-0f3c2a --results results.csv']
  static override args = {batchId: Args.string({description: 'the batch id render-batch printed', required: true})}
  static override flags = {
    results: Flags.string({description: 'write the sheet to this local .csv or .jsonl file instead of the bucket'}),
    ...stackFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaBatchResults)
    const rebuilt = await rebuildLambdaResults({
      batchId: args.batchId,
      bucketName: required(flags.bucket, 'bucket', BUCKET_ENV),
      ...(flags.results !== undefined && {results: resolve(flags.results)}),
      endpoint: flags.endpoint,
      region: flags.region,
    })
    this.log(`${rebuilt.results} (${rebuilt.rows} rows ended)`)
  }
}
