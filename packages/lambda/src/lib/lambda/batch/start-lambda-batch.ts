import {createReadStream, createWriteStream, type WriteStream} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {once} from 'node:events'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {DescribeExecutionCommand, StartExecutionCommand, type SFNClient} from '@aws-sdk/client-sfn'
import type {S3Client} from '@aws-sdk/client-s3'
import {readLines} from 'html-video-engine/internal/lib/batch/rows/read-lines.js'
import {readRows, type RowSource} from 'html-video-engine/internal/lib/batch/rows/read-rows.js'
import {outputExtension} from 'html-video-engine/internal/lib/encode/format-plugin.js'
import {getFormat} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {EngineError, toEngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {VariableDeclaration} from 'html-video-engine/internal/lib/variables/variable-declaration.js'
import {createS3Client, createSfnClient, STATE_MACHINE_ENV, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import type {RenderConfig, SiteHandle} from '../render-input.js'
import {executionArnFor} from '../render-progress.js'
import {BucketObjects} from '../s3-objects.js'
import {batchRenderId, newBatchId} from './batch-ids.js'
import {batchItem, type BatchEntry, type BatchStatus} from './batch-items.js'
import {batchItemsKey, batchMapResultsPrefix, batchItemSchema, batchRecordKey, batchRejectedKey, type BatchItem, type BatchRecord, type RejectedLine} from './batch-records.js'
import {storeBatchWebhook} from './batch-webhook.js'
import type {WebhookTarget} from 'html-video-engine/internal/lib/notify/index.js'
import {checkLambdaWebhook} from '../lambda-webhook.js'
import {readBatchRows} from './batch-rows.js'
import {batchStateMachineArnOf, type BatchExecutionInput} from './batch-state-machine.js'

export const DEFAULT_MAX_CONCURRENT = 50
/** A failed row never stops the others: the batch runs to its end (`--tolerated-failure-percent` lowers it). */
export const DEFAULT_TOLERATED_FAILURE_PERCENTAGE = 100

export interface LambdaBatchOptions extends AwsClientOptions {
  bucketName: string
  /** The render workflow (default ENGINE_SFN_ARN); the batch workflow is the one beside it. */
  stateMachineArn?: string
  /** Renders running at once (the Distributed Map's MaxConcurrency). */
  maxConcurrent?: number
  /** Failed rows (percent of the run's rows) above which the batch stops launching rows; default 100. */
  toleratedFailurePercentage?: number
  /** Called with each line's entry, in line order, once the batch has started (or failed to). */
  onEntry?: (entry: BatchEntry) => void
  /**
   * Called (signed) as each row ends, with `row: {index, data}`, and once when a run ends
   * (`batch.completed`), by the function in the cloud: a public URL (on the local stack, any).
   * On `--resume`, a new one replaces the batch's.
   */
  webhook?: WebhookTarget
  s3?: S3Client
  sfn?: SFNClient
}

export interface RenderBatchOnLambdaOptions extends LambdaBatchOptions {
  rows: RowSource
  /** The composition's declarations: values take their types and other columns are row data (kept off the page). Without them every cell is a value, as written. */
  declarations?: readonly VariableDeclaration[]
  siteHandle: Pick<SiteHandle, 'siteId'> & Partial<SiteHandle>
  /** Settings shared by every row; each row brings its own variables. */
  config: Omit<RenderConfig, 'variables'>
  /** Storage key of rows without an outputKey of their own, with `{index}`/`{<key>}` placeholders; default `batches/<batchId>/{index}.<ext>`. */
  outputKeyTemplate?: string
  /**
   * File name a browser saves each row's output under (Content-Disposition), for rows without a
   * `downloadName` of their own, with the same placeholders (`Invoice {customer_id}.mp4`).
   */
  downloadNameTemplate?: string
  /** Frames and parallel chunks of one row's render, for progress and the concurrency warning. */
  plan?: {framesPerRow: number; chunksPerRender: number}
  dryRun?: boolean
}

export interface LambdaBatchHandle {
  batchId: string
  run: number
  bucketName: string
  /** The batch workflow's execution; absent on a dry run or when no row could start. */
  executionArn?: string
  counts: Record<BatchStatus, number>
}

/**
 * Starts a batch on the serverless stack and returns at once: every usable row of the file goes to
 * S3 (as JSON Lines) and one execution of the batch workflow renders them, `maxConcurrent` at a
 * time, in the cloud, so the batch goes on when this process ends. Rows are read and checked as a
 * stream; a row that cannot start (its error says why) never stops the others. `onEntry` gets one
 * entry per line, in order: `started` rows are queued in the batch and run as the execution
 * named in the entry.
 */
export async function renderBatchOnLambda(options: RenderBatchOnLambdaOptions): Promise<LambdaBatchHandle> {
  if (options.webhook) options = {...options, webhook: checkLambdaWebhook(options.webhook, options.endpoint)}
  const batchId = newBatchId()
  const renderArn = renderStateMachine(options)
  const spool = await BatchSpool.create()
  try {
    const extension = outputExtensionOf(options.config.format)
    const settings = {
      batchId,
      run: 1,
      siteHandle: options.siteHandle,
      bucketName: options.bucketName,
      config: options.config,
      outputKeyTemplate: options.outputKeyTemplate ?? `batches/${batchId}/{index}${extension}`,
      downloadNameTemplate: options.downloadNameTemplate,
    }
    const taken = new Map<string, number>()
    let total = 0
    for await (const row of readRows(options.rows, options.declarations)) {
      total++
      const made = batchItem(row, settings, taken)
      if ('item' in made) await spool.accept(made.item, renderArn)
      else await spool.reject({line: row.line ?? row.index + 1, outputKey: made.outputKey, status: 'failed-to-start', error: made.error}, row)
    }
    if (total === 0) throw new EngineError('INVALID_FLAG', `--batch: ${options.rows.path === '-' ? 'standard input' : options.rows.path} has no rows`, {batch: options.rows.path})
    await spool.seal()
    if (options.dryRun) return {batchId, run: 1, bucketName: options.bucketName, counts: await spool.report(options.onEntry, {dryRun: true})}
    const record: BatchRecord = {
      batchId,
      createdAt: new Date().toISOString(),
      bucketName: options.bucketName,
      siteId: options.siteHandle.siteId,
      entry: options.siteHandle.entry ?? 'index.html',
      stateMachineArn: renderArn,
      total,
      rejected: spool.rejected,
      ...(options.plan && {framesPerRow: options.plan.framesPerRow, chunksPerRender: options.plan.chunksPerRender}),
      maxConcurrent: options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
      toleratedFailurePercentage: options.toleratedFailurePercentage ?? DEFAULT_TOLERATED_FAILURE_PERCENTAGE,
      ...(options.webhook && {webhook: true}),
      runs: [],
    }
    return await startRun(record, spool, options)
  } finally {
    await spool.remove()
  }
}

export interface ResumeBatchOptions extends LambdaBatchOptions {
  batchId: string
}

/**
 * `render-batch --resume <id>`: renders again, in a new run of the same batch, every row that has
 * not succeeded (failed, or never reached when the batch was cancelled or stopped); rows that
 * succeeded keep their output. A batch whose latest run is still going is refused.
 */
export async function resumeBatchOnLambda(options: ResumeBatchOptions): Promise<LambdaBatchHandle> {
  if (options.webhook) options = {...options, webhook: checkLambdaWebhook(options.webhook, options.endpoint)}
  const s3 = options.s3 ?? createS3Client(options)
  const sfn = options.sfn ?? createSfnClient(options)
  const bucket = new BucketObjects(s3, options.bucketName)
  const what = `resuming batch ${options.batchId}`
  const record = await bucket.getJson<BatchRecord>(batchRecordKey(options.batchId)).catch((error: unknown) => {
    throw awsFailure(error, what, {bucketName: options.bucketName, endpoint: options.endpoint})
  })
  if (!record) {
    throw new EngineError('NOT_FOUND', `--resume ${options.batchId}: no such batch in ${options.bucketName}; \`engine lambda batch progress <id>\` takes the id render-batch printed`, {batchId: options.batchId})
  }
  const last = record.runs.at(-1)!
  const status = (await sfn.send(new DescribeExecutionCommand({executionArn: last.executionArn})).catch((error: unknown) => {
    throw awsFailure(error, what, {endpoint: options.endpoint})
  })).status
  if (status === 'RUNNING') {
    throw new EngineError('INVALID_REQUEST', `--resume ${options.batchId}: run ${last.run} of the batch is still running; wait for it, or stop it with \`engine lambda batch cancel ${options.batchId}\``, {
      batchId: options.batchId,
      run: last.run,
    })
  }
  const succeeded = await succeededRows(bucket, record)
  const run = last.run + 1
  const spool = await BatchSpool.create()
  try {
    const items = await bucket.lines(batchItemsKey(record.batchId, 1))
    for await (const line of items ?? []) {
      const item = batchItemSchema.parse(JSON.parse(line))
      if (!succeeded.has(item.index)) await spool.accept({...item, renderId: batchRenderId(record.batchId, run, item.index)}, record.stateMachineArn)
    }
    await spool.seal()
    if (spool.accepted === 0) return {batchId: record.batchId, run: last.run, bucketName: record.bucketName, counts: await spool.report(options.onEntry)}
    const maxConcurrent = options.maxConcurrent ?? record.maxConcurrent
    const toleratedFailurePercentage = options.toleratedFailurePercentage ?? record.toleratedFailurePercentage
    return await startRun({...record, maxConcurrent, toleratedFailurePercentage, ...(options.webhook && {webhook: true})}, spool, {...options, s3, sfn})
  } finally {
    await spool.remove()
  }
}

/** Uploads a run's rows, records the run in batch.json and starts the batch workflow on them. */
async function startRun(record: BatchRecord, spool: BatchSpool, options: LambdaBatchOptions): Promise<LambdaBatchHandle> {
  const run = (record.runs.at(-1)?.run ?? 0) + 1
  const bucket = new BucketObjects(options.s3 ?? createS3Client(options), record.bucketName)
  const sfn = options.sfn ?? createSfnClient(options)
  const batchArn = batchStateMachineArnOf(record.stateMachineArn)
  let executionArn: string | undefined
  let failure: EngineError | undefined
  if (spool.accepted > 0) {
    try {
      const itemsKey = batchItemsKey(record.batchId, run)
      await bucket.uploadFile(itemsKey, spool.itemsPath, 'application/x-ndjson')
      if (run === 1 && spool.rejected > 0) await bucket.uploadFile(batchRejectedKey(record.batchId), spool.rejectedPath, 'application/x-ndjson')
      // Before the run starts, so that its first row finds it; the secret stays in the bucket.
      if (options.webhook) await storeBatchWebhook(bucket, record.batchId, options.webhook)
      const input: BatchExecutionInput = {
        batchId: record.batchId,
        run,
        bucketName: record.bucketName,
        itemsKey,
        resultsPrefix: batchMapResultsPrefix(record.batchId, run),
        siteId: record.siteId,
        entry: record.entry,
        maxConcurrent: record.maxConcurrent,
        toleratedFailurePercentage: record.toleratedFailurePercentage,
        webhook: record.webhook ?? false,
      }
      const name = `${record.batchId}-run-${run}`
      executionArn = executionArnFor(batchArn, name)
      const runs = [...record.runs, {run, executionArn, startedAt: new Date().toISOString(), rows: spool.accepted}]
      // Written first: progress and resume find the run even if the client stops right after starting it.
      await bucket.putJson(batchRecordKey(record.batchId), {...record, runs})
      await sfn.send(new StartExecutionCommand({stateMachineArn: batchArn, name, input: JSON.stringify(input)}))
    } catch (error) {
      failure = awsFailure(error, `starting batch ${record.batchId} on ${batchArn}`, {bucketName: record.bucketName, endpoint: options.endpoint})
      executionArn = undefined
    }
  }
  const counts = await spool.report(options.onEntry, {failure})
  if (failure && spool.rejected === 0) throw failure
  return {batchId: record.batchId, run, bucketName: record.bucketName, ...(executionArn && {executionArn}), counts}
}

/** Indices of the rows that have succeeded in any run. */
async function succeededRows(bucket: BucketObjects, record: BatchRecord): Promise<Set<number>> {
  const done = new Set<number>()
  for await (const row of readBatchRows(bucket, record.batchId)) if (row.status === 'succeeded' || row.status === 'cached') done.add(row.index)
  return done
}

function renderStateMachine(options: {stateMachineArn?: string; env?: NodeJS.ProcessEnv; dryRun?: boolean}): string {
  const arn = options.stateMachineArn ?? (options.env ?? process.env)[STATE_MACHINE_ENV]
  if (arn) return arn
  if (options.dryRun) return 'arn:aws:states:us-east-1:000000000000:stateMachine:dry-run'
  throw new EngineError('INVALID_FLAG', `--state-machine-arn: no render workflow given; pass it or set ${STATE_MACHINE_ENV} (printed by \`engine lambda deploy\`)`, {field: 'state-machine-arn'})
}

function outputExtensionOf(format: string | undefined): string {
  try {
    return outputExtension(getFormat(format ?? 'mp4')) ?? ''
  } catch {
    // An unknown format is refused row by row, with the field name (validateConfig).
    return ''
  }
}

/**
 * A run's rows and the entry of every line, in two temporary files: entries are reported, in line
 * order, only once the run has started (or failed to), and nothing grows in memory with the rows.
 */
class BatchSpool {
  accepted = 0
  rejected = 0

  private constructor(
    private readonly directory: string,
    private readonly items: WriteStream,
    private readonly entries: WriteStream,
    private readonly rejectedLines: WriteStream,
  ) {}

  static async create(): Promise<BatchSpool> {
    const directory = await mkdtemp(join(tmpdir(), 'engine-lambda-batch-'))
    return new BatchSpool(directory, createWriteStream(join(directory, 'items.jsonl')), createWriteStream(join(directory, 'entries.jsonl')), createWriteStream(join(directory, 'rejected.jsonl')))
  }

  /** The lines that never became a row, for the result sheet (see RejectedLine). */
  get rejectedPath(): string {
    return join(this.directory, 'rejected.jsonl')
  }

  get itemsPath(): string {
    return join(this.directory, 'items.jsonl')
  }

  async accept(item: BatchItem, renderArn: string): Promise<void> {
    this.accepted++
    await write(this.items, JSON.stringify(item))
    await write(this.entries, JSON.stringify({line: item.line, outputKey: item.outputKey, status: 'started', renderId: item.renderId, executionArn: executionArnFor(renderArn, item.renderId)}))
  }

  async reject(entry: BatchEntry, row?: {index: number; columns: Record<string, unknown>}): Promise<void> {
    this.rejected++
    await write(this.entries, JSON.stringify(entry))
    if (row && entry.error) {
      const line: RejectedLine = {index: row.index, line: entry.line, ...(entry.outputKey !== undefined && {outputKey: entry.outputKey}), columns: row.columns, error: entry.error}
      await write(this.rejectedLines, JSON.stringify(line))
    }
  }

  async seal(): Promise<void> {
    for (const stream of [this.items, this.entries, this.rejectedLines]) {
      stream.end()
      await once(stream, 'finish')
    }
  }

  /** Reads the entries back to `onEntry`: a dry run's would-invoke/invalid, or the rows of a run that failed to start. */
  async report(onEntry: ((entry: BatchEntry) => void) | undefined, how: {dryRun?: boolean; failure?: EngineError} = {}): Promise<Record<BatchStatus, number>> {
    const counts: Record<BatchStatus, number> = {started: 0, 'failed-to-start': 0, 'would-invoke': 0, invalid: 0}
    for await (const line of readLines(createReadStream(join(this.directory, 'entries.jsonl')))) {
      const entry = JSON.parse(line) as BatchEntry
      const final: BatchEntry = how.dryRun
        ? entry.status === 'started'
          ? {line: entry.line, outputKey: entry.outputKey, status: 'would-invoke'}
          : {...entry, status: 'invalid'}
        : how.failure && entry.status === 'started'
          ? {line: entry.line, outputKey: entry.outputKey, status: 'failed-to-start', error: toEngineError(how.failure).toJSON()}
          : entry
      counts[final.status]++
      onEntry?.(final)
    }
    return counts
  }

  async remove(): Promise<void> {
    for (const stream of [this.items, this.entries, this.rejectedLines]) {
      stream.on('error', () => {})
      stream.destroy()
    }
    await rm(this.directory, {recursive: true, force: true})
  }
}

async function write(stream: WriteStream, line: string): Promise<void> {
  if (!stream.write(line + '\n')) await once(stream, 'drain')
}
