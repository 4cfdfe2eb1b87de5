import {DescribeExecutionCommand, ListExecutionsCommand, StopExecutionCommand, type SFNClient} from '@aws-sdk/client-sfn'
import type {S3Client} from '@aws-sdk/client-s3'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, createSfnClient, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {cancelRender} from '../cancel-render.js'
import {mapLimited} from '../map-limited.js'
import {BucketObjects} from '../s3-objects.js'
import {TASK_ERROR_PREFIX} from '../task-errors.js'
import {batchRecordKey, type BatchRecord} from './batch-records.js'

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
}

/**
 * Stops a batch: its latest run's workflow (no row is launched after this) and every render of that
 * run still running (each as `engine lambda cancel` does). Rows that had succeeded keep their
 * output; `render-batch --resume <id>` renders the rest.
 */
export async function cancelBatch(options: CancelBatchOptions): Promise<CancelledBatch> {
  const s3 = options.s3 ?? createS3Client(options)
  const sfn = options.sfn ?? createSfnClient(options)
  const what = `cancelling batch ${options.batchId}`
  const fail = (error: unknown): never => {
    throw awsFailure(error, what, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
  const record = await new BucketObjects(s3, options.bucketName).getJson<BatchRecord>(batchRecordKey(options.batchId)).catch(fail)
  if (!record) throw new EngineError('NOT_FOUND', `batch ${options.batchId}: no such batch in ${options.bucketName}`, {batchId: options.batchId})
  const run = record.runs.at(-1)!
  const execution = await sfn.send(new DescribeExecutionCommand({executionArn: run.executionArn})).catch(fail)
  const stopped = execution.status === 'RUNNING'
  if (stopped) {
    await sfn
      .send(new StopExecutionCommand({executionArn: run.executionArn, error: `${TASK_ERROR_PREFIX}CANCELLED`, cause: `batch ${record.batchId} was cancelled (\`engine lambda batch cancel\`)`}))
      .catch(fail)
  }
  const prefix = `${record.batchId}-r${run.run}-`
  const running: string[] = []
  let nextToken: string | undefined
  do {
    const page = await sfn.send(new ListExecutionsCommand({stateMachineArn: record.stateMachineArn, statusFilter: 'RUNNING', maxResults: 1000, nextToken})).catch(fail)
    for (const listed of page.executions ?? []) if (listed.name?.startsWith(prefix) && listed.executionArn) running.push(listed.executionArn)
    nextToken = page.nextToken
  } while (nextToken)
  await mapLimited(running, CANCEL_CONCURRENCY, (executionArn) => cancelRender({...options, s3, sfn, render: executionArn}).catch(() => undefined))
  return {batchId: record.batchId, run: run.run, stopped, rendersCancelled: running.length}
}
