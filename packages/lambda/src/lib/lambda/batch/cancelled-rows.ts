import {DescribeExecutionCommand, ListExecutionsCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {mapLimited} from '../map-limited.js'
import type {BucketObjects} from '../s3-objects.js'
import {TASK_ERROR_PREFIX} from '../task-errors.js'
import {batchRowOf} from './batch-ids.js'
import {batchRowKey, type BatchRowRecord} from './batch-records.js'

const CONCURRENCY = 8

/** The render executions of a batch run still running: their names start with the run's render id prefix. */
export async function runningRowRenders(sfn: SFNClient, renderStateMachineArn: string, prefix: string): Promise<string[]> {
  const running: string[] = []
  let nextToken: string | undefined
  do {
    const page = await sfn.send(new ListExecutionsCommand({stateMachineArn: renderStateMachineArn, statusFilter: 'RUNNING', maxResults: 1000, nextToken}))
    for (const listed of page.executions ?? []) if (listed.name?.startsWith(prefix) && listed.executionArn) running.push(listed.executionArn)
    nextToken = page.nextToken
  } while (nextToken)
  return running
}

/**
 * The record of each row whose render a batch cancel stopped, as the workflow writes a failed row's
 * (its Catch never ran: the batch was stopped first), with the render's CANCELLED error, so that
 * the manifest gives every row that ran its final status and `--resume` renders them again.
 */
export async function writeCancelledRows(sfn: SFNClient, bucket: BucketObjects, executionArns: readonly string[]): Promise<void> {
  await mapLimited(executionArns, CONCURRENCY, async (executionArn) => {
    const execution = await sfn.send(new DescribeExecutionCommand({executionArn}))
    const input = JSON.parse(execution.input ?? '{}') as {renderId?: string; outputKey?: string}
    const row = input.renderId ? batchRowOf(input.renderId) : undefined
    if (!row || !input.renderId) return
    const error = {code: 'CANCELLED', message: `render ${input.renderId} was cancelled with its batch (\`engine lambda batch cancel\`)`}
    const record: BatchRowRecord = {
      index: row.index,
      run: row.run,
      renderId: input.renderId,
      outputKey: input.outputKey ?? '',
      status: 'failed',
      error: `${TASK_ERROR_PREFIX}CANCELLED`,
      cause: JSON.stringify({Status: 'ABORTED', Error: `${TASK_ERROR_PREFIX}CANCELLED`, Cause: JSON.stringify(error)}),
    }
    await bucket.putJson(batchRowKey(row.batchId, row.index), record)
  })
}
