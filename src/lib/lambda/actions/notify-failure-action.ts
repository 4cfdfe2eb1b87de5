import {renderPayload} from '../../notify/index.js'
import type {NotifyFailureEvent} from '../render-input.js'
import type {RenderFailureRecord, RenderRecord} from '../render-records.js'
import {notifyRenderWebhook} from '../render-webhook.js'
import {BucketObjects} from '../s3-objects.js'
import {renderFailureKey, renderRecordKey, scratchPrefix} from '../storage-keys.js'
import {parseTaskCause} from '../task-errors.js'
import type {ActionContext} from './action-context.js'

/**
 * The workflow's failure path: records why the render failed (code, message, the failing chunk
 * and its log stream) where progress finds it, tells the render's webhook (if any), and deletes the
 * render's scratch at once instead of leaving it to the lifecycle rule. The workflow then fails
 * with the original error.
 */
export async function notifyFailureAction(event: NotifyFailureEvent, context: ActionContext): Promise<{notified: boolean; failureKey: string}> {
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const error = parseTaskCause(event.failure.Error, event.failure.Cause) ?? {code: 'INTERNAL' as const, message: 'the render failed'}
  const failure: RenderFailureRecord = {
    renderId: event.renderId,
    error: event.failure.Error ?? 'States.TaskFailed',
    code: error.code,
    message: error.message,
    ...(error.chunk !== undefined && {chunk: error.chunk}),
    ...(error.logStream !== undefined && {logStream: error.logStream}),
    failedAt: new Date().toISOString(),
  }
  await bucket.putJson(renderFailureKey(event.renderId), failure)
  const record = await bucket.getJson<RenderRecord>(renderRecordKey(event.renderId)).catch(() => undefined)
  // The webhook's target lives in the scratch: call it before the scratch goes.
  const delivery = await notifyRenderWebhook(
    bucket,
    event.renderId,
    renderPayload({id: event.renderId, error: {code: error.code, message: error.message}, renderMs: record ? Date.now() - Date.parse(record.plannedAt) + record.plan.durationMs : null}),
  )
  await bucket.deleteKeys(await bucket.listKeys(scratchPrefix(event.renderId)))
  return {notified: delivery?.delivered ?? false, failureKey: renderFailureKey(event.renderId)}
}
