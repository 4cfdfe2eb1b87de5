import {renderPayload} from 'html-video-engine/internal/lib/notify/index.js'
import type {NotifyFailureEvent} from '../render-input.js'
import type {RenderFailureRecord, RenderRecord} from '../render-records.js'
import {notifyRenderWebhook} from '../render-webhook.js'
import {readStop, stopRender} from '../runtime/render-stop.js'
import {BucketObjects} from '../s3-objects.js'
import {chunkFailuresPrefix, renderCancelKey, renderFailureKey, renderRecordKey} from '../storage-keys.js'
import {parseTaskCause} from '../task-errors.js'
import type {ActionContext} from './action-context.js'

/** How a Distributed Map fails when its children do (tolerated failures: none). */
const DISTRIBUTED_MAP_FAILED = 'States.ExceedToleratedFailureThreshold'
/** How long the failure path leaves a cancel under way to stop the execution itself. */
const CANCEL_GRACE_MS = 30_000
const CANCEL_POLL_MS = 250

/**
 * The workflow's failure path: stops the render's chunks that are still running (AWS does not: a
 * failed Map leaves its other iterations' invocations running), records why the render failed
 * (code, message, the failing chunk and its log stream) where progress finds it, tells the render's
 * webhook (if any), and deletes the render's scratch in the order that leaves none behind (see
 * stopRender). A render being cancelled is the cancel's to record and announce. The workflow then
 * fails with the original error.
 */
export async function notifyFailureAction(event: NotifyFailureEvent, context: ActionContext, cancelGraceMs = CANCEL_GRACE_MS): Promise<NotifiedFailure> {
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const caught = await chunkFailureOf(bucket, event.renderId, event.failure)
  const failed = {Error: caught.Error ?? 'States.TaskFailed', Cause: caught.Cause ?? ''}
  if ((await readStop(bucket, event.renderId))?.reason === 'cancelled') {
    // A chunk saw the cancel's stop marker before the cancel had stopped the execution. Returning
    // now would end the execution FAILED with the chunk's words, ahead of the cancel's stop
    // (ABORTED, as the cancel reports it). The cancel writes its record after the stop (and before
    // its webhook): once it is there the execution is stopped and this result is dropped. A cancel
    // that died on the way still ends the render, FAILED, when the grace is over.
    await waitForCancelRecord(bucket, event.renderId, cancelGraceMs)
    await stopRender(bucket, event.renderId, 'cancelled')
    return {notified: false, failureKey: renderFailureKey(event.renderId), failure: failed}
  }
  const error = parseTaskCause(caught.Error, caught.Cause) ?? {code: 'INTERNAL' as const, message: 'the render failed'}
  const failure: RenderFailureRecord = {
    renderId: event.renderId,
    error: failed.Error,
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
  return {notified, failureKey: renderFailureKey(event.renderId), failure: failed}
}

/** What the workflow's Fail state fails the execution with: the failure recorded (the chunk's own, for a Distributed Map). */
export interface NotifiedFailure {
  notified: boolean
  failureKey: string
  failure: {Error: string; Cause: string}
}

/** Returns once the cancel's record is there, or when `graceMs` is over; a failed read counts as not there yet. */
async function waitForCancelRecord(bucket: BucketObjects, renderId: string, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs
  while (!(await bucket.exists(renderCancelKey(renderId)).catch(() => false)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, CANCEL_POLL_MS))
  }
}

/**
 * The error to record: the one caught, unless it is the Distributed Map's own (its children
 * failed), when the first chunk that noted its failure says what went wrong.
 */
async function chunkFailureOf(bucket: BucketObjects, renderId: string, caught: NotifyFailureEvent['failure']): Promise<NotifyFailureEvent['failure']> {
  if (caught.Error !== DISTRIBUTED_MAP_FAILED) return caught
  const [first] = (await bucket.listKeys(chunkFailuresPrefix(renderId)).catch(() => [])).sort()
  const noted = first === undefined ? undefined : await bucket.getJson<{Error: string; Cause: string}>(first).catch(() => undefined)
  return noted ?? caught
}
