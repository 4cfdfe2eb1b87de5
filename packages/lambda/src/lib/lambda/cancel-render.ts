import type {S3Client} from '@aws-sdk/client-s3'
import {DescribeExecutionCommand, StopExecutionCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, createSfnClient, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import type {RenderInput} from './render-input.js'
import {resolveExecutionArn} from './render-progress.js'
import type {RenderCancelRecord} from './render-records.js'
import {BucketObjects} from './s3-objects.js'
import {renderCancelKey} from './storage-keys.js'
import {markStopped, stopRender} from './runtime/render-stop.js'
import {TASK_ERROR_PREFIX} from './task-errors.js'
import {renderPayload, type WebhookTarget} from 'html-video-engine/internal/lib/notify/index.js'
import {deliverRenderWebhook, readRenderWebhook} from './render-webhook.js'

export interface CancelRenderOptions extends AwsClientOptions {
  /** A renderId (needs `stateMachineArn` or ENGINE_SFN_ARN) or an executionArn. */
  render: string
  stateMachineArn?: string
  sfn?: SFNClient
  s3?: S3Client
}

export interface CancelledRender extends RenderCancelRecord {
  bucketName: string
  /** False when the execution had already been stopped (a repeated cancel only cleans up again). */
  stopped: boolean
  /** Milliseconds from the call until the execution was stopped (absent when it already was), and until the cancel was done. */
  stoppedAfterMs?: number
  durationMs: number
}

/**
 * Stops a running render: the render's stop marker is written first (its running chunks stop
 * before their next segment and remove what they stored), then its execution is stopped with a
 * CANCELLED error (which progress shows), the scratch is deleted, `renders/<renderId>/cancelled.json`
 * records it and its webhook is called with `render.failed` (error CANCELLED).
 *
 * A stopped execution runs no Catch, so this does the failure path's work itself; the stack's
 * execution-end rule sweeps the scratch once more when the execution has ended.
 */
export async function cancelRender(options: CancelRenderOptions): Promise<CancelledRender> {
  const startedAt = performance.now()
  const since = () => Math.round(performance.now() - startedAt)
  let stoppedAfterMs: number | undefined
  const executionArn = resolveExecutionArn(options)
  const sfn = options.sfn ?? createSfnClient(options)
  const s3 = options.s3 ?? createS3Client(options)
  let input: RenderInput
  let webhook: WebhookTarget | undefined
  let stopped = false
  try {
    const execution = await sfn.send(new DescribeExecutionCommand({executionArn}))
    input = JSON.parse(execution.input ?? '{}') as RenderInput
    if (execution.status === 'RUNNING') {
      // Read before the stop: the execution-end rule sweeps the scratch, where the target is kept,
      // as soon as the execution has ended, and it may do so before this call gets to notify.
      webhook = await readRenderWebhook(new BucketObjects(s3, input.bucketName), input.renderId)
      // Before the stop, so that the rule handling the stopped execution finds the cancel's own marker.
      await markStopped(new BucketObjects(s3, input.bucketName), input.renderId, 'cancelled')
      await sfn.send(new StopExecutionCommand({executionArn, error: `${TASK_ERROR_PREFIX}CANCELLED`, cause: JSON.stringify(cancelledError(input.renderId))}))
      stopped = true
      stoppedAfterMs = since()
    } else if (execution.status !== 'ABORTED') {
      throw new EngineError(
        'INVALID_REQUEST',
        `render: ${input.renderId} already ended ${execution.status}, so there is nothing to cancel; \`engine lambda renders ls\` lists the renders still running`,
        {field: 'render', value: options.render, status: execution.status},
      )
    }
  } catch (error) {
    throw awsFailure(error, `cancelling ${executionArn}`, {endpoint: options.endpoint})
  }

  const bucket = new BucketObjects(s3, input.bucketName)
  try {
    const deleted = await stopRender(bucket, input.renderId, 'cancelled')
    // A repeated cancel keeps the time of the first.
    const earlier = stopped ? undefined : await bucket.getJson<RenderCancelRecord>(renderCancelKey(input.renderId))
    const record: RenderCancelRecord = {
      renderId: input.renderId,
      executionArn,
      cancelledAt: earlier?.cancelledAt ?? new Date().toISOString(),
      scratchObjectsDeleted: deleted,
    }
    await bucket.putJson(renderCancelKey(input.renderId), record)
    return {...record, bucketName: input.bucketName, stopped, ...(stoppedAfterMs !== undefined && {stoppedAfterMs}), durationMs: since()}
  } catch (error) {
    throw awsFailure(error, `cleaning up the cancelled render ${input.renderId}`, {bucketName: input.bucketName, endpoint: options.endpoint})
  } finally {
    // A stopped execution runs no failure path, so the render's webhook is called from here, once;
    // after the record, which a chunk's failure path waits for (its sign that the execution is
    // stopped): a slow webhook must not keep the workflow waiting until it ends FAILED.
    if (stopped) await deliverRenderWebhook(bucket, input.renderId, webhook, renderPayload({id: input.renderId, error: cancelledError(input.renderId)}))
  }
}

function cancelledError(renderId: string) {
  return {code: 'CANCELLED', message: `render ${renderId} was cancelled (\`engine lambda cancel\`)`}
}
