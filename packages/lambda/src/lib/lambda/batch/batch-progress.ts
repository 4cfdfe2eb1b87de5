import {DescribeExecutionCommand, DescribeMapRunCommand, ListMapRunsCommand, type SFNClient} from '@aws-sdk/client-sfn'
import type {S3Client} from '@aws-sdk/client-s3'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, createSfnClient, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {getRenderProgress, type ExecutionStatus} from '../render-progress.js'
import {BucketObjects} from '../s3-objects.js'
import {batchManifestKey, batchRecordKey, batchRowsPrefix, type BatchManifestFile, type BatchRecord, type BatchRowRecord} from './batch-records.js'

/** Finished renders whose cost is read to estimate the batch's. */
const COST_SAMPLE = 5

export interface BatchProgress {
  batchId: string
  bucketName: string
  /** The latest run (1, then one more per `--resume`) and its execution. */
  run: number
  executionArn: string
  status: ExecutionStatus
  rows: {total: number; pending: number; running: number; succeeded: number; failed: number; rejected: number; skipped: number}
  /** Frames of the rows that succeeded, of all rows (when the batch knew one row's frames). */
  frames: {done: number; total?: number}
  /** The whole batch so far, estimated from a sample of finished renders' exact cost; S3 not included. */
  cost?: {usd: number; perRowUsd: number; sampledRows: number}
  startedAt: string
  elapsedSeconds: number
  /** Rows finished per minute in this run, and when the rest should be done at that rate. */
  rowsPerMinute: number
  etaSeconds?: number
  /** `batches/<id>/manifest.json`, once a run has ended. */
  manifestKey?: string
}

export interface BatchProgressOptions extends AwsClientOptions {
  batchId: string
  bucketName: string
  s3?: S3Client
  sfn?: SFNClient
}

/**
 * Where a batch stands, in a few requests whatever its size: its latest run's execution, the
 * Distributed Map's counts of rows pending, running, succeeded and failed (the manifest's once the
 * run has ended), frames from the rows done, and the cost from a sample of finished renders.
 */
export async function getBatchProgress(options: BatchProgressOptions): Promise<BatchProgress> {
  const s3 = options.s3 ?? createS3Client(options)
  const sfn = options.sfn ?? createSfnClient(options)
  const bucket = new BucketObjects(s3, options.bucketName)
  const failing = (what: string) => (error: unknown) => {
    throw awsFailure(error, `${what} of batch ${options.batchId}`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
  const record = await bucket.getJson<BatchRecord>(batchRecordKey(options.batchId)).catch(failing('reading the record'))
  if (!record) throw new EngineError('NOT_FOUND', `batch ${options.batchId}: no such batch in ${options.bucketName}`, {batchId: options.batchId})
  const run = record.runs.at(-1)!
  const execution = await sfn.send(new DescribeExecutionCommand({executionArn: run.executionArn})).catch(failing('reading the execution'))
  const status = execution.status as ExecutionStatus
  const manifest = status === 'RUNNING' ? undefined : await bucket.getJson<BatchManifestFile>(batchManifestKey(record.batchId)).catch(failing('reading the manifest'))
  const rows = manifest?.run === run.run ? manifestCounts(manifest) : await mapRunCounts(sfn, record, run.executionArn).catch(failing('reading the map run'))

  const startedAt = execution.startDate ?? new Date(run.startedAt)
  const elapsedSeconds = Math.max(0, ((execution.stopDate ?? new Date()).getTime() - startedAt.getTime()) / 1000)
  const finishedThisRun = run.rows - rows.pending - rows.running
  const rowsPerMinute = elapsedSeconds > 0 ? (finishedThisRun * 60) / elapsedSeconds : 0
  const left = rows.pending + rows.running
  const perRowUsd = await sampledCostPerRow(bucket, options, record).catch(failing('sampling the cost'))
  const finished = rows.succeeded + rows.failed
  return {
    batchId: record.batchId,
    bucketName: record.bucketName,
    run: run.run,
    executionArn: run.executionArn,
    status,
    rows,
    frames: {done: rows.succeeded * (record.framesPerRow ?? 0), ...(record.framesPerRow !== undefined && {total: (record.total - record.rejected) * record.framesPerRow})},
    ...(perRowUsd && {cost: {usd: roundUsd(perRowUsd.usd * finished), perRowUsd: roundUsd(perRowUsd.usd), sampledRows: perRowUsd.sampled}}),
    startedAt: startedAt.toISOString(),
    elapsedSeconds: Math.round(elapsedSeconds * 10) / 10,
    rowsPerMinute: Math.round(rowsPerMinute * 10) / 10,
    ...(status === 'RUNNING' && rowsPerMinute > 0 && left > 0 && {etaSeconds: Math.round((left / rowsPerMinute) * 60)}),
    ...(manifest && {manifestKey: batchManifestKey(record.batchId)}),
  }
}

/** Once a run has ended none of its rows runs; rows it never reached are pending a --resume. */
function manifestCounts(manifest: BatchManifestFile): BatchProgress['rows'] {
  const {total, succeeded, failed, rejected, missing} = manifest.counts
  // A row copied from the render cache has its output as one rendered has.
  return {total, pending: missing, running: 0, succeeded: succeeded + (manifest.counts.cached ?? 0), failed, rejected, skipped: manifest.counts.skipped ?? 0}
}

/** The latest run's rows from its Distributed Map; rows earlier runs finished are the rest of the batch. */
async function mapRunCounts(sfn: SFNClient, record: BatchRecord, executionArn: string): Promise<BatchProgress['rows']> {
  const earlier = record.total - record.rejected - record.runs.at(-1)!.rows
  // A row the check pass skipped ends well: the map run counts it with the succeeded until the manifest tells them apart.
  const base = {total: record.total, rejected: record.rejected, succeeded: earlier, skipped: 0}
  const mapRunArn = (await sfn.send(new ListMapRunsCommand({executionArn, maxResults: 1}))).mapRuns?.[0]?.mapRunArn
  if (!mapRunArn) return {...base, pending: record.runs.at(-1)!.rows, running: 0, failed: 0}
  const counts = (await sfn.send(new DescribeMapRunCommand({mapRunArn}))).itemCounts
  const run = record.runs.at(-1)!.rows
  const succeeded = counts?.succeeded ?? 0
  const running = counts?.running ?? 0
  // Rows a stopped run aborted have not failed: like those it never reached, they wait for a --resume.
  const failed = (counts?.failed ?? 0) + (counts?.timedOut ?? 0)
  return {...base, succeeded: earlier + succeeded, running, failed, pending: Math.max(0, run - succeeded - running - failed)}
}

/** What one row costs, as the exact cost of a few finished renders says; a render that cannot be read right now is left out of the sample. */
async function sampledCostPerRow(bucket: BucketObjects, options: BatchProgressOptions, record: BatchRecord): Promise<{usd: number; sampled: number} | undefined> {
  const keys = await bucket.firstKeys(batchRowsPrefix(record.batchId), COST_SAMPLE)
  const rows = (await Promise.all(keys.map((key) => bucket.getJson<BatchRowRecord>(key)))).filter((row): row is BatchRowRecord => row?.status === 'succeeded')
  if (rows.length === 0) return undefined
  const read = await Promise.all(
    rows.map((row) =>
      getRenderProgress({...options, render: row.renderId, stateMachineArn: record.stateMachineArn}).then(
        (progress) => progress.cost.usd,
        () => undefined,
      ),
    ),
  )
  const costs = read.filter((usd): usd is number => usd !== undefined)
  return costs.length === 0 ? undefined : {usd: costs.reduce((sum, usd) => sum + usd, 0) / costs.length, sampled: costs.length}
}

function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6
}
