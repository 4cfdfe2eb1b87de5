import {DescribeExecutionCommand, StopExecutionCommand, type SFNClient} from '@aws-sdk/client-sfn'
import type {S3Client} from '@aws-sdk/client-s3'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, createSfnClient, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {cancelRender} from '../cancel-render.js'
import {mapLimited} from '../map-limited.js'
import {BucketObjects} from '../s3-objects.js'
import {TASK_ERROR_PREFIX} from '../task-errors.js'
import {finishBatchAction} from '../actions/finish-batch-action.js'
import {markStopped} from '../runtime/render-stop.js'
import {batchRecordKey, type BatchManifestFile, type BatchRecord} from './batch-records.js'
import {runningRowRenders, writeCancelledRows} from './cancelled-rows.js'

/** Renders cancelled at once (each: a stop, a webhook, a scratch cleanup). */
const CANCEL_CONCURRENCY = 8

export interface CancelBatchOptions extends AwsClientOptions {
  batchId: string
  bucketName: string
  s3?: S3Client
  sfn?: SFNClient
}

export interface CancelledBatch {
  batchId: string
  run: number
  /** False when the run had already ended. */
  stopped: boolean
  /** Row renders that were running and were cancelled. */
  rendersCancelled: number
  /** The batch manifest written after the cancel: every row that ended, with its final status. */
  counts: BatchManifestFile['counts']
}

/**
 * Stops a batch: every render of its latest run still running is marked cancelled (the first stop
 * reason is the one kept, and stopping the batch also ends its nested renders), then the run's
 * workflow is stopped (no row starts after this), then each of those renders, and any that started
 * meanwhile, is cancelled as `engine lambda cancel` does (its chunks stop, its scratch is deleted).
 * A stopped workflow runs no Finish, so the rows' records and the batch manifest are written here.
 * Rows that had succeeded keep their output; `render-batch --resume <id>` renders the rest.
 */
export async function cancelBatch(options: CancelBatchOptions): Promise<CancelledBatch> {
  const s3 = options.s3 ?? createS3Client(options)
  const sfn = options.sfn ?? createSfnClient(options)
  const what = `cancelling batch ${options.batchId}`
  const fail = (error: unknown): never => {
    throw awsFailure(error, what, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
  const bucket = new BucketObjects(s3, options.bucketName)
  const record = await bucket.getJson<BatchRecord>(batchRecordKey(options.batchId)).catch(fail)
  if (!record) throw new EngineError('NOT_FOUND', `batch ${options.batchId}: no such batch in ${options.bucketName}`, {batchId: options.batchId})
  const run = record.runs.at(-1)!
  const prefix = `${record.batchId}-r${run.run}-`
  const before = await runningRowRenders(sfn, record.stateMachineArn, prefix).catch(fail)
  await mapLimited(before, CANCEL_CONCURRENCY, (executionArn) => markStopped(bucket, executionArn.split(':').at(-1)!, 'cancelled')).catch(fail)
  const execution = await sfn.send(new DescribeExecutionCommand({executionArn: run.executionArn})).catch(fail)
  const stopped = execution.status === 'RUNNING'
  if (stopped) {
    await sfn
      .send(new StopExecutionCommand({executionArn: run.executionArn, error: `${TASK_ERROR_PREFIX}CANCELLED`, cause: `batch ${record.batchId} was cancelled (\`engine lambda batch cancel\`)`}))
      .catch(fail)
  }
  const running = [...new Set([...before, ...(await runningRowRenders(sfn, record.stateMachineArn, prefix).catch(fail))])]
  const outcomes = await mapLimited(running, CANCEL_CONCURRENCY, (executionArn) => cancelRender({...options, s3, sfn, render: executionArn}).then(() => executionArn, () => undefined))
  const cancelled = outcomes.filter((executionArn): executionArn is string => executionArn !== undefined)
  await writeCancelledRows(sfn, bucket, cancelled).catch(fail)
  const counts = await finishBatchAction({action: 'finishBatch', batchId: record.batchId, bucketName: options.bucketName, run: run.run}, {s3, memoryMb: 0, startedAt: performance.now()}).catch(fail)
  return {batchId: record.batchId, run: run.run, stopped, rendersCancelled: cancelled.length, counts}
}
