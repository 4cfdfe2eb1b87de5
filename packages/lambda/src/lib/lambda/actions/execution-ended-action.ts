import {renderPayload} from 'html-video-engine/internal/lib/notify/index.js'
import type {ErrorCode} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {ExecutionEndedEvent} from '../runtime/execution-end-rule.js'
import {readStop, stopRender, type StopReason} from '../runtime/render-stop.js'
import type {RenderFailureRecord, RenderRecord} from '../render-records.js'
import {notifyRenderWebhook} from '../render-webhook.js'
import {BucketObjects} from '../s3-objects.js'
import {renderFailureKey, renderRecordKey, renderWebhookDeliveryKey} from '../storage-keys.js'
import {parseTaskCause, tryParse} from '../task-errors.js'
import type {ActionContext} from './action-context.js'

const REASONS: Record<ExecutionEndedEvent['status'], StopReason> = {FAILED: 'failed', TIMED_OUT: 'timed-out', ABORTED: 'aborted'}

/**
 * The execution-end rule's target (see execution-end-rule.ts): every render that ends FAILED,
 * TIMED_OUT or ABORTED gets here once it has ended. A cancel (`engine lambda cancel`) or the
 * workflow's own failure path has already recorded the end and called the webhook: then this only
 * sweeps the scratch once more. Otherwise — the execution timed out, was stopped from outside, or
 * its failure path failed — it writes the failure record (code TIMED_OUT, ABORTED or the task's),
 * calls the render's webhook with `render.failed`, and deletes the scratch.
 */
export async function executionEndedAction(event: ExecutionEndedEvent, context: ActionContext): Promise<{renderId: string; recorded: boolean; scratchObjectsDeleted: number}> {
  const bucketName = tryParse(event.input ?? undefined)?.bucketName
  if (typeof bucketName !== 'string') return {renderId: event.renderId, recorded: false, scratchObjectsDeleted: 0}
  const bucket = new BucketObjects(context.s3, bucketName)
  const [stop, failed] = await Promise.all([readStop(bucket, event.renderId), bucket.exists(renderFailureKey(event.renderId))])
  if (stop?.reason === 'cancelled' || failed) {
    return {renderId: event.renderId, recorded: false, scratchObjectsDeleted: await stopRender(bucket, event.renderId, stop?.reason ?? 'failed')}
  }
  const error = endError(event)
  const record = await bucket.getJson<RenderRecord>(renderRecordKey(event.renderId)).catch(() => undefined)
  const deleted = await stopRender(bucket, event.renderId, REASONS[event.status], async () => {
    const failure: RenderFailureRecord = {
      renderId: event.renderId,
      error: event.error ?? (event.status === 'TIMED_OUT' ? 'States.Timeout' : `States.${event.status}`),
      code: error.code,
      message: error.message,
      failedAt: new Date().toISOString(),
    }
    await bucket.putJson(renderFailureKey(event.renderId), failure)
    // A webhook already called (by a failure path that failed after it) is not called twice.
    if (await bucket.exists(renderWebhookDeliveryKey(event.renderId))) return
    await notifyRenderWebhook(
      bucket,
      event.renderId,
      renderPayload({id: event.renderId, error, renderMs: record ? Date.now() - Date.parse(record.plannedAt) + record.plan.durationMs : null}),
    )
  })
  return {renderId: event.renderId, recorded: true, scratchObjectsDeleted: deleted}
}

function endError(event: ExecutionEndedEvent): {code: ErrorCode; message: string} {
  if (event.status === 'TIMED_OUT') {
    return {code: 'TIMED_OUT', message: `render ${event.renderId} ran past the workflow's execution timeout and was ended by Step Functions; give it a --timeout, or use more, smaller chunks`}
  }
  if (event.status === 'ABORTED') {
    const why = [event.error, event.cause].filter(Boolean).join(': ')
    return {code: 'ABORTED', message: `render ${event.renderId}'s execution was stopped from outside the engine${why ? ` (${why})` : ''}; \`engine lambda cancel\` stops a render`}
  }
  return parseTaskCause(event.error ?? undefined, event.cause ?? undefined) ?? {code: 'INTERNAL', message: `render ${event.renderId} failed`}
}
