import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {chunkTuningFlags, configFromFlags, lambdaEncodeFlags, lambdaSizeFlags, required, stackFlags, stateMachineFlag} from '../../cli/lambda-flags.js'
import {EngineError} from '../../lib/errors/engine-error.js'
import {BUCKET_ENV, createS3Client, STATE_MACHINE_ENV} from '../../lib/lambda/aws-clients.js'
import {readBatchLines} from '../../lib/lambda/batch-lines.js'
import {deploySite, siteHandleFromId} from '../../lib/lambda/deploy-site.js'
import {BucketObjects} from '../../lib/lambda/s3-objects.js'
import {listSiteFiles, siteIdOf} from '../../lib/lambda/site-files.js'
import {readStackRecord} from '../../lib/lambda/stack-record.js'
import {batchCounts, concurrencyWarning, DEFAULT_MAX_CONCURRENT_STARTS, startRenderBatch, type BatchEntry} from '../../lib/lambda/start-batch.js'

export default class LambdaRenderBatch extends BaseCommand {
  static override summary = 'Start one serverless render per line of a JSONL batch file'
  static override description =
    'Each line is {"outputKey": "...", "variables": {...}}; variables come only from the lines. Every line ends as started, failed-to-start, ' +
    'or (--dry-run) would-invoke; a failing line never affects lines already started. Keep --max-concurrent near floor(reserved concurrency / max parallel chunks).'
  static override examples = ['<%= config.bin %> lambda render-batch ./my-project --batch rows.jsonl --max-concurrent 50 --json']
  static override args = {projectDir: Args.string({description: 'project directory (its index.html is the composition)', required: true})}
  static override flags = {
    batch: Flags.string({description: 'JSONL file: one {"outputKey", "variables"} object per line', required: true}),
    'max-concurrent': Flags.integer({description: 'workflow starts in flight at once', default: DEFAULT_MAX_CONCURRENT_STARTS, min: 1}),
    'site-id': Flags.string({description: 'use an uploaded site (skips the upload)'}),
    json: Flags.boolean({description: 'print an array of result entries'}),
    'dry-run': Flags.boolean({description: 'start nothing; every entry reports would-invoke'}),
    'variables-file': Flags.string({description: 'not accepted: variables come only from the batch lines', hidden: true}),
    variables: Flags.string({description: 'not accepted: variables come only from the batch lines', hidden: true}),
    ...lambdaSizeFlags,
    ...lambdaEncodeFlags,
    ...chunkTuningFlags,
    ...stackFlags,
    ...stateMachineFlag,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaRenderBatch)
    for (const refused of ['variables-file', 'variables'] as const) {
      if (flags[refused] !== undefined) {
        throw new EngineError(
          'INVALID_FLAG',
          `--${refused}: render-batch takes variables only from the batch lines; put them in each line's "variables" object`,
          {flag: `--${refused}`},
        )
      }
    }
    const dryRun = flags['dry-run']
    const lines = await readBatchLines(flags.batch)
    const config = configFromFlags(flags)
    const aws = {endpoint: flags.endpoint, region: flags.region}
    // A dry run talks to nothing: the Site ID is computed, not uploaded, and no bucket is needed.
    const bucketName = dryRun ? (flags.bucket ?? '(dry-run)') : required(flags.bucket, 'bucket', BUCKET_ENV)
    const stateMachineArn = dryRun ? flags['state-machine-arn'] : required(flags['state-machine-arn'], 'state-machine-arn', STATE_MACHINE_ENV)
    const siteHandle = flags['site-id']
      ? siteHandleFromId(flags['site-id'], bucketName)
      : dryRun
        ? {siteId: siteIdOf(await listSiteFiles(args.projectDir)), bucketName}
        : await deploySite({projectDir: args.projectDir, bucketName, ...aws})

    if (!dryRun) {
      const stack = await readStackRecord(new BucketObjects(createS3Client(aws), bucketName))
      const warning = concurrencyWarning(flags['max-concurrent'], config.maxParallelChunks, stack ?? {})
      if (warning) process.stderr.write(`warning: ${warning}\n`)
    }
    const entries = await startRenderBatch({
      lines,
      siteHandle,
      bucketName,
      stateMachineArn,
      config,
      maxConcurrent: flags['max-concurrent'],
      dryRun,
      ...aws,
    })
    const counts = batchCounts(entries)
    if (flags.json) this.log(JSON.stringify(entries, null, 2))
    else {
      for (const entry of entries) this.log(entryLine(entry))
      this.log(
        dryRun
          ? `${counts['would-invoke']} would-invoke, ${counts.invalid} invalid (dry run: nothing started)`
          : `${counts.started} started, ${counts['failed-to-start']} failed-to-start`,
      )
    }
    if (counts['failed-to-start'] > 0 || counts.invalid > 0) process.exitCode = 1
  }
}

function entryLine(entry: BatchEntry): string {
  const parts = [`line ${entry.line}`, entry.outputKey ?? '(no outputKey)', entry.status]
  if (entry.executionArn) parts.push(entry.executionArn)
  if (entry.error) parts.push(`${entry.status === 'invalid' ? 'would fail: ' : ''}[${entry.error.code}] ${entry.error.message}`)
  return parts.join('  ')
}
