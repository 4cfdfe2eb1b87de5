import type {ActionContext} from './action-context.js'
import type {FinishBatchEvent} from '../render-input.js'
import {batchManifestKey, batchRecordKey, type BatchManifestFile, type BatchManifestRow, type BatchRecord, type BatchRowRecord} from '../batch/batch-records.js'
import {batchLines, writeLambdaResults} from '../batch/batch-results.js'
import {batchCompletedPayload, deliverBatchWebhook, readBatchWebhook} from '../batch/batch-webhook.js'
import {parseTaskCause, tryParse} from '../task-errors.js'
import {rowRecords} from '../batch/batch-rows.js'
import {BucketObjects} from '../s3-objects.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

/**
 * The batch workflow's last step, whatever its Map did: gathers every row record into
 * `batches/<batchId>/manifest.json` with the counts and each row's data, writes the result sheet
 * beside it (`results.csv`), then calls the batch's webhook (`batch.completed`), so a finished
 * batch is one file to read. Rows that never ended (stopped, or over the tolerated failures) are
 * counted as missing.
 */
export async function finishBatchAction(event: FinishBatchEvent, context: ActionContext): Promise<BatchManifestFile['counts']> {
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const batch = await bucket.getJson<BatchRecord>(batchRecordKey(event.batchId))
  if (!batch) throw new EngineError('INVALID_REQUEST', `batch ${event.batchId} has no ${batchRecordKey(event.batchId)}`, {batchId: event.batchId})
  const rows: BatchManifestRow[] = []
  for await (const row of rowRecords(bucket, event.batchId)) rows.push(manifestRow(row))
  rows.sort((a, b) => a.index - b.index)
  await withRowData(bucket, event.batchId, rows)
  const count = (status: BatchManifestRow['status']) => rows.filter((row) => row.status === status).length
  const counts = {
    total: batch.total,
    succeeded: count('succeeded'),
    cached: count('cached'),
    failed: count('failed'),
    skipped: count('skipped'),
    rejected: batch.rejected,
    missing: Math.max(0, batch.total - batch.rejected - rows.length),
  }
  const resultsKey = await writeLambdaResults(bucket, event.batchId, rows)
  const manifest: BatchManifestFile = {batchId: event.batchId, run: event.run, writtenAt: new Date().toISOString(), counts, rows, resultsKey}
  await bucket.putJson(batchManifestKey(event.batchId), manifest)
  const webhook = batch.webhook ? await readBatchWebhook(bucket, event.batchId) : undefined
  if (webhook) {
    const started = event.startedAt === undefined ? Number.NaN : Date.parse(event.startedAt)
    const delivery = await deliverBatchWebhook(webhook, batchCompletedPayload(manifest, event.bucketName, Number.isNaN(started) ? 0 : Date.now() - started))
    await bucket.putJson(batchManifestKey(event.batchId), {...manifest, webhook: delivery})
  }
  return counts
}

/** Each row's data (its columns that are not variables), from the rows the batch started with. */
async function withRowData(bucket: BucketObjects, batchId: string, rows: BatchManifestRow[]): Promise<void> {
  const byIndex = new Map(rows.map((row) => [row.index, row]))
  for await (const line of batchLines(bucket, batchId)) {
    const row = byIndex.get(line.index)
    if (row && !line.rejected) row.data = line.data
  }
}

/**
 * A row's record as the manifest gives it: its outcome's fields beside its status, and a failed
 * row's error as the render gave it: the workflow caught `States.TaskFailed` with the render's
 * execution as the cause, whose own error and cause are the render's. AWS's service integration
 * writes that execution with PascalCase keys (`Error`, `Cause`, as its `Output` and `Status`); the
 * API's own casing (`error`, `cause`) is read too.
 */
export function manifestRow({error, cause, result, ...row}: BatchRowRecord): BatchManifestRow {
  if (row.status !== 'failed') {
    if (!result) return row
    return {
      ...row,
      ...(result.bytes !== null && {bytes: result.bytes}),
      ...(result.totalFrames !== null && {totalFrames: result.totalFrames}),
      ...(result.outputBucket !== null && {outputBucket: result.outputBucket}),
      ...(result.sha256 !== null && {sha256: result.sha256}),
      ...(result.durationSeconds !== null && {durationSeconds: result.durationSeconds}),
      ...(result.posterKey !== null && {posterKey: result.posterKey}),
      ...(result.renderMs !== null && {renderMs: result.renderMs}),
      ...(result.warnings.length > 0 && {warnings: result.warnings}),
      ...(result.skippedReason !== null && {skippedReason: result.skippedReason}),
    }
  }
  const execution = tryParse(cause)
  const nested = {error: execution?.Error ?? execution?.error, cause: execution?.Cause ?? execution?.cause}
  const failure =
    typeof nested.error === 'string' || typeof nested.cause === 'string'
      ? parseTaskCause(nested.error as string | undefined, nested.cause as string | undefined)
      : parseTaskCause(error, cause)
  return {...row, error: failure ?? {code: 'INTERNAL', message: 'the render failed'}}
}
