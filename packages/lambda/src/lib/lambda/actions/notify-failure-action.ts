import {renderPayload} from 'html-video-engine/internal/lib/notify/index.js'
import type {NotifyFailureEvent} from '../render-input.js'
import type {RenderFailureRecord, RenderRecord} from '../render-records.js'
import {notifyRenderWebhook} from '../render-webhook.js'
import {readStop, stopRender} from '../runtime/render-stop.js'
import {BucketObjects} from '../s3-objects.js'
import {renderFailureKey, renderRecordKey} from '../storage-keys.js'
import {parseTaskCause} from '../task-errors.js'
import type {ActionContext} from './action-context.js'

/**
 * The workflow's failure path: stops the render's chunks that are still running (AWS does not: a
 * failed Map leaves its other iterations' invocations running), records why the render failed
 * (code, message, the failing chunk and its log stream) where progress finds it, tells the render's
 * webhook (if any), and deletes the render's scratch in the order that leaves none behind (see
 * stopRender). A render being cancelled is the cancel's to record and announce. The workflow then
 * fails with the original error.
 */
export async function notifyFailureAction(event: NotifyFailureEvent, context: ActionContext): Promise<{notified: boolean; failureKey: string}> {
  const bucket = new BucketObjects(context.s3, event.bucketName)
  if ((await readStop(bucket, event.renderId))?.reason === 'cancelled') {
    await stopRender(bucket, event.renderId, 'cancelled')
    return {notified: false, failureKey: renderFailureKey(event.renderId)}
  }
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
  let notified = false
  await stopRender(bucket, event.renderId, error.code === 'TIMED_OUT' ? 'timed-out' : 'failed', async () => {
    await bucket.putJson(renderFailureKey(event.renderId), failure)
    const record = await bucket.getJson<RenderRecord>(renderRecordKey(event.renderId)).catch(() => undefined)
    // The webhook's target lives in the scratch: called before the scratch goes.
    const delivery = await notifyRenderWebhook(
      bucket,
      event.renderId,
      renderPayload({id: event.renderId, error: {code: error.code, message: error.message}, renderMs: record ? Date.now() - Date.parse(record.plannedAt) + record.plan.durationMs : null}),
    )
    notified = delivery?.delivered ?? false
  })
  return {notified, failureKey: renderFailureKey(event.renderId)}
}
