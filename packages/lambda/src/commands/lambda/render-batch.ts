import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {renderFlags} from 'html-video-engine/internal/cli/render-flags.js'
import {webhookFlags} from 'html-video-engine/internal/cli/webhook-flags.js'
import type {OnOverflow} from 'html-video-engine/internal/lib/render/text-findings.js'
import {lambdaWebhookFromFlags} from '../../cli/lambda-webhook.js'
import {
  checkOutputSettings,
  chunkTuningFlags,
  configFromFlags,
  lambdaEncodeFlags,
  lambdaOutputFlags,
  lambdaSizeFlags,
  outputSettingsFromFlags,
  required,
  stackFlags,
  stateMachineFlag,
} from '../../cli/lambda-flags.js'
import {entryLine, EntryPrinter} from '../../cli/lambda-batch-text.js'
import {assertDownloadName} from '../../lib/lambda/output-settings.js'
import {openRowSource} from 'html-video-engine/internal/lib/batch/rows/read-rows.js'
import {STDIN_BATCH} from 'html-video-engine/internal/lib/batch/rows/batch-format.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {BATCH_FORMATS} from 'html-video-engine/internal/lib/plan/render-options.js'
import {BUCKET_ENV, createS3Client, STATE_MACHINE_ENV} from '../../lib/lambda/aws-clients.js'
import {batchConcurrencyWarning, defaultMaxConcurrent} from '../../lib/lambda/batch/batch-concurrency-warning.js'
import {planBatchRows} from '../../lib/lambda/batch/plan-batch-rows.js'
import {DEFAULT_MAX_CONCURRENT, DEFAULT_TOLERATED_FAILURE_PERCENTAGE, renderBatchOnLambda, resumeBatchOnLambda, type LambdaBatchHandle} from '../../lib/lambda/batch/start-lambda-batch.js'
import {deploySite, siteHandleFromId} from '../../lib/lambda/deploy-site.js'
import {BucketObjects} from '../../lib/lambda/s3-objects.js'
import {listSiteFiles, siteIdOf} from '../../lib/lambda/site-files.js'
import {readStackRecord} from '../../lib/lambda/stack-record.js'

export default class LambdaRenderBatch extends BaseCommand {
  static override summary = 'Render one video per row of a batch file on the serverless stack; returns a batch id at once'
  static override description =
    'Rows come from --batch: CSV/TSV (a header of variable ids, optionally outputKey and downloadName columns), JSON Lines ({"outputKey", "downloadName", "variables"} or flat rows), JSON, or - (standard input); ' +
    'variables come only from the rows. The rows go to S3 and one batch workflow renders them in the cloud, --max-concurrent at a time, so the batch goes on when this command ends: ' +
    'follow it with `lambda batch progress <id>`, stop it with `lambda batch cancel <id>`, and render what did not succeed with --resume <id>. ' +
    'Every line ends as started (queued in the batch), failed-to-start, or (--dry-run) would-invoke; a failing line never affects the others.'
  static override examples = [
    '<%= config.bin %> lambda render-batch examples/hello --batch examples/hello/rows.csv --max-concurrent 5',
    '<%= config.bin %> lambda render-batch ./my-project --batch rows.jsonl --output-key "videos/{customer_id}.mp4" --json',
    '<%= config.bin %> lambda render-batch ./my-project --resume lx2k9a1b-0f3c2a',
    '<%= config.bin %> lambda render-batch ./my-project --batch customers.csv --on-overflow skip --webhook https://example.com/hooks/render --webhook-data \'{"campaign":"spring"}\'',
  ]
  static override args = {projectDir: Args.string({description: 'project directory (its index.html is the composition)', required: true})}
  static override flags = {
    batch: Flags.string({description: 'rows: .csv/.tsv, .jsonl/.ndjson, .json, or - for standard input (JSON Lines)', exclusive: ['resume']}),
    'batch-format': Flags.string({description: 'how to read --batch, whatever its extension', options: [...BATCH_FORMATS]}),
    resume: Flags.string({description: 'render again every row of this batch that has not succeeded (failed, or never reached), in a new run'}),
    'output-key': Flags.string({description: 'storage key of rows without their own outputKey, with {index} and {<column>} placeholders (default batches/<batchId>/{index}.<ext>)'}),
    'max-concurrent': Flags.integer({
      description: `renders running at once (default: what the function's concurrency runs with all chunks of each, from the stack record, at most ${DEFAULT_MAX_CONCURRENT})`,
      min: 1,
    }),
    'tolerated-failure-percent': Flags.integer({description: `stop launching rows once more than this percentage of them failed (default ${DEFAULT_TOLERATED_FAILURE_PERCENTAGE}: never)`, min: 0, max: 100}),
    'site-id': Flags.string({description: 'use an uploaded site (skips the upload)'}),
    json: Flags.boolean({description: 'print an array of result entries'}),
    'dry-run': Flags.boolean({description: 'start nothing; every entry reports would-invoke (or invalid, with why)'}),
    'variables-file': Flags.string({description: 'not accepted: variables come only from the batch rows', hidden: true}),
    variables: Flags.string({description: 'not accepted: variables come only from the batch rows', hidden: true}),
    'download-name': Flags.string({
      description: 'file name a browser saves each output under (Content-Disposition), for rows without a downloadName of their own: {index} and {<column>} placeholders, e.g. "Invoice {customer_id}.mp4"',
    }),
    'on-overflow': renderFlags['on-overflow'],
    'check-only': renderFlags['check-only'],
    cache: Flags.boolean({
      allowNo: true,
      description: "reuse an identical earlier render from the bucket's cache/ (a copy, its sha256 checked: status cached) and store each new one there (default on unless the function's ENGINE_RENDER_CACHE is off); --no-cache renders every row",
    }),
    webhook: Flags.string({description: 'http(s) URL the function calls (POST, signed JSON) as each row ends (row: {index, data}) and when the batch ends (batch.completed); a public address (on the local stack, any)'}),
    'webhook-secret': webhookFlags['webhook-secret'],
    'webhook-data': webhookFlags['webhook-data'],
    // Every row's output goes there and is kept that long.
    'output-bucket': lambdaOutputFlags['output-bucket'],
    'delete-after': lambdaOutputFlags['delete-after'],
    overwrite: lambdaOutputFlags.overwrite,
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
        throw new EngineError('INVALID_FLAG', `--${refused}: render-batch takes variables only from the batch rows; put them in each row (a column, or the line's "variables" object)`, {flag: `--${refused}`})
      }
    }
    const dryRun = flags['dry-run']
    const aws = {endpoint: flags.endpoint, region: flags.region}
    const printer = new EntryPrinter(flags.json, (line) => this.log(line))
    const webhook = lambdaWebhookFromFlags(flags, process.env)
    const common = {
      maxConcurrent: flags['max-concurrent'] as number | undefined,
      toleratedFailurePercentage: flags['tolerated-failure-percent'],
      onEntry: (entry: Parameters<typeof entryLine>[0]) => printer.entry(entry),
      ...(webhook && {webhook}),
      ...aws,
    }
    if (flags.resume !== undefined) {
      if (dryRun) throw new EngineError('INVALID_FLAG', '--dry-run cannot be combined with --resume: a resumed batch runs the rows it already checked', {flag: '--dry-run'})
      for (const flag of ['on-overflow', 'check-only'] as const) {
        if (flags[flag]) throw new EngineError('INVALID_FLAG', `--${flag} cannot be combined with --resume: a resumed batch renders its rows with the settings it started with; start a new batch for other ones`, {flag: `--${flag}`})
      }
      const bucketName = required(flags.bucket, 'bucket', BUCKET_ENV)
      this.finish(printer, await resumeBatchOnLambda({batchId: flags.resume, bucketName, ...common}), false)
      return
    }
    if (flags.batch === undefined) throw new EngineError('INVALID_FLAG', '--batch is required: a .csv, .jsonl or .json file of rows (or - for standard input), or --resume <batchId>', {flag: '--batch'})
    const rows = await openRowSource(flags.batch === STDIN_BATCH ? STDIN_BATCH : flags.batch, flags['batch-format'] as (typeof BATCH_FORMATS)[number] | undefined)
    const config = {
      ...configFromFlags(flags),
      ...outputSettingsFromFlags({'output-bucket': flags['output-bucket'], 'delete-after': flags['delete-after'], overwrite: flags.overwrite}),
      // Every row is checked, as a local batch's is: in its plan step, before any chunk (default warn).
      onOverflow: (flags['on-overflow'] ?? 'warn') as OnOverflow,
      ...(flags['check-only'] && {checkOnly: true}),
      ...(flags.cache !== undefined && {cache: flags.cache}),
    }
    // The template's own text follows the name rules (a placeholder's value is made safe when filled).
    const downloadNameTemplate = flags['download-name'] === undefined ? undefined : assertDownloadName(flags['download-name'], '--download-name')
    // A dry run talks to nothing: the Site ID is computed, not uploaded, and no bucket is needed.
    const bucketName = dryRun ? (flags.bucket ?? '(dry-run)') : required(flags.bucket, 'bucket', BUCKET_ENV)
    const stateMachineArn = dryRun ? flags['state-machine-arn'] : required(flags['state-machine-arn'], 'state-machine-arn', STATE_MACHINE_ENV)
    const plan = await planBatchRows(args.projectDir, config)
    // Before the site is uploaded: a bucket the function may not write to costs nothing.
    if (!dryRun) {
      const stack = await readStackRecord(new BucketObjects(createS3Client(aws), bucketName))
      const kept = checkOutputSettings(config, stack)
      if (kept) process.stderr.write(`warning [delete-after-unchecked]: ${kept}\n`)
      // Unless told, never more renders at once than the function can run with all their chunks.
      common.maxConcurrent ??= defaultMaxConcurrent(plan.chunks, stack ?? {}, DEFAULT_MAX_CONCURRENT)
      const warning = batchConcurrencyWarning(common.maxConcurrent, plan.chunks, stack ?? {})
      if (warning) process.stderr.write(`warning [batch-throttled]: ${warning}\n`)
    }
    const siteHandle = flags['site-id']
      ? siteHandleFromId(flags['site-id'], bucketName)
      : dryRun
        ? {siteId: siteIdOf(await listSiteFiles(args.projectDir)), bucketName}
        : await deploySite({projectDir: args.projectDir, bucketName, ...aws})
    const handle = await renderBatchOnLambda({
      rows,
      declarations: plan.declarations,
      siteHandle,
      bucketName,
      stateMachineArn,
      config,
      outputKeyTemplate: flags['output-key'],
      downloadNameTemplate,
      ...(plan.framesPerRow !== undefined && {plan: {framesPerRow: plan.framesPerRow, chunksPerRender: plan.chunks.count}}),
      dryRun,
      ...common,
    })
    this.finish(printer, handle, dryRun)
  }

  private finish(printer: EntryPrinter, handle: LambdaBatchHandle, dryRun: boolean): void {
    printer.end()
    const {counts} = handle
    if (!printer.json) {
      this.log(
        dryRun
          ? `${counts['would-invoke']} would-invoke, ${counts.invalid} invalid (dry run: nothing started)`
          : `${counts.started} started, ${counts['failed-to-start']} failed-to-start`,
      )
    }
    // On stderr also with --json, whose stdout is the array of entries.
    if (handle.executionArn) process.stderr.write(`batch ${handle.batchId} (run ${handle.run}) runs in the cloud: \`engine lambda batch progress ${handle.batchId} --watch\` follows it\n`)
    if (counts['failed-to-start'] > 0 || counts.invalid > 0) process.exitCode = 1
  }
}
