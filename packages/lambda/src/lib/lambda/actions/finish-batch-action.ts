import type {ActionContext} from './action-context.js'
import type {FinishBatchEvent} from '../render-input.js'
import {batchManifestKey, batchRecordKey, type BatchManifestFile, type BatchManifestRow, type BatchRecord, type BatchRowRecord} from '../batch/batch-records.js'
import {parseTaskCause, tryParse} from '../task-errors.js'
import {rowRecords} from '../batch/batch-rows.js'
import {BucketObjects} from '../s3-objects.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

/**
 * The batch workflow's last step, whatever its Map did: gathers every row record into
 * `batches/<batchId>/manifest.json` with the counts, so a finished batch is one file to read.
 * Rows that never ended (stopped, or over the tolerated failures) are counted as missing.
 */
export async function finishBatchAction(event: FinishBatchEvent, context: ActionContext): Promise<BatchManifestFile['counts']> {
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const batch = await bucket.getJson<BatchRecord>(batchRecordKey(event.batchId))
  if (!batch) throw new EngineError('INVALID_REQUEST', `batch ${event.batchId} has no ${batchRecordKey(event.batchId)}`, {batchId: event.batchId})
  const rows: BatchManifestRow[] = []
  for await (const row of rowRecords(bucket, event.batchId)) rows.push(manifestRow(row))
  rows.sort((a, b) => a.index - b.index)
  const succeeded = rows.filter((row) => row.status === 'succeeded').length
  const counts = {total: batch.total, succeeded, failed: rows.length - succeeded, rejected: batch.rejected, missing: Math.max(0, batch.total - batch.rejected - rows.length)}
  const manifest: BatchManifestFile = {batchId: event.batchId, run: event.run, writtenAt: new Date().toISOString(), counts, rows}
  await bucket.putJson(batchManifestKey(event.batchId), manifest)
  return counts
}

/**
 * A failed row's error as the render gave it: the workflow caught `States.TaskFailed` with the
 * render's execution as the cause, whose own error and cause are the render's. AWS's service
 * integration writes that execution with PascalCase keys (`Error`, `Cause`, as its `Output` and
 * `Status`); the API's own casing (`error`, `cause`) is read too.
 */
export function manifestRow({error, cause, ...row}: BatchRowRecord): BatchManifestRow {
  if (row.status !== 'failed') return row
  const execution = tryParse(cause)
  const nested = {error: execution?.Error ?? execution?.error, cause: execution?.Cause ?? execution?.cause}
  const failure =
    typeof nested.error === 'string' || typeof nested.cause === 'string'
      ? parseTaskCause(nested.error as string | undefined, nested.cause as string | undefined)
      : parseTaskCause(error, cause)
  return {...row, error: failure ?? {code: 'INTERNAL', message: 'the render failed'}}
}
