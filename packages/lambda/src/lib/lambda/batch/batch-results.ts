import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {rowColumns} from 'html-video-engine/internal/lib/batch/results/batch-results.js'
import {resultStatus} from 'html-video-engine/internal/lib/batch/results/result-row.js'
import {writeResultSheet, type ResultSheetRow} from 'html-video-engine/internal/lib/batch/results/result-sheet.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'
import type {BucketObjects} from '../s3-objects.js'
import {batchItemSchema, batchItemsKey, batchRejectedKey, batchResultsKey, type BatchManifestRow, type RejectedLine} from './batch-records.js'
import {rowObjectUrl} from './batch-webhook.js'

/** A line of the batch file: a row the workflow ran (its item) or one that never started. */
type BatchLine = {index: number; columns: Record<string, unknown>; data: Record<string, unknown>; rejected?: RejectedLine}

/**
 * Every line of a batch in file order: the rows of its first run (every row that started) merged
 * with the lines that never became a row. Both are written in line order, so one pass each.
 */
export async function* batchLines(bucket: BucketObjects, batchId: string): AsyncGenerator<BatchLine> {
  const items = (await bucket.lines(batchItemsKey(batchId, 1))) ?? empty()
  const rejected = (await bucket.lines(batchRejectedKey(batchId))) ?? empty()
  const nextItem = async () => {
    const next = await items.next()
    if (next.done) return undefined
    const item = batchItemSchema.parse(JSON.parse(next.value))
    return {index: item.index, columns: item.columns ?? {...item.config.variables, ...item.data}, data: item.data}
  }
  const nextRejected = async () => {
    const next = await rejected.next()
    if (next.done) return undefined
    const line = JSON.parse(next.value) as RejectedLine
    return {index: line.index, columns: line.columns, data: {}, rejected: line}
  }
  let item = await nextItem()
  let line = await nextRejected()
  while (item || line) {
    if (item && (!line || item.index < line.index)) {
      yield item
      item = await nextItem()
    } else {
      yield line!
      line = await nextRejected()
    }
  }
}

async function* empty(): AsyncGenerator<string> {}

/** Why a row the run never reached has no outcome yet. */
export const NOT_REACHED = 'not reached: the run was stopped before this row ended; `engine lambda render-batch --resume <batchId>` renders it'

/** One line of the sheet: the local batch's columns and statuses, the output as an s3:// URL. */
export function lambdaResultRow(line: BatchLine, row: BatchManifestRow | undefined, bucketName: string): ResultSheetRow {
  if (line.rejected) {
    return {columns: line.columns, status: 'failed', output: line.rejected.outputKey === undefined ? '' : `s3://${bucketName}/${line.rejected.outputKey}`, error: line.rejected.error}
  }
  if (!row) return {columns: line.columns, status: 'skipped', output: '', error: {code: '', message: NOT_REACHED}}
  const ended = row.status === 'succeeded'
  return {
    columns: line.columns,
    status: resultStatus(ended ? 'completed' : row.status, row.warnings),
    output: rowObjectUrl(row, bucketName, row.outputKey),
    sha256: row.sha256 ?? undefined,
    bytes: row.bytes ?? undefined,
    durationSeconds: row.durationSeconds ?? undefined,
    frames: row.totalFrames ?? undefined,
    poster: row.posterKey ? rowObjectUrl(row, bucketName, row.posterKey) : undefined,
    renderMs: row.renderMs ?? undefined,
    warnings: row.warnings?.map((warning) => warning.code),
    error: row.status === 'failed' ? row.error : row.status === 'skipped' && row.skippedReason ? {code: '', message: row.skippedReason} : undefined,
  }
}

/**
 * The batch's result sheet from its manifest rows and its lines, written with the core's sheet
 * writer (same columns, same formula escaping as a local batch) and put beside the manifest.
 * Returns its key.
 */
export async function writeLambdaResults(bucket: BucketObjects, batchId: string, rows: readonly BatchManifestRow[], sheetPath?: string): Promise<string> {
  const byIndex = new Map(rows.map((row) => [row.index, row]))
  const columns = await rowColumns(batchLines(bucket, batchId))
  async function* sheetRows(): AsyncGenerator<ResultSheetRow> {
    for await (const line of batchLines(bucket, batchId)) yield lambdaResultRow(line, byIndex.get(line.index), bucket.bucketName)
  }
  if (sheetPath) {
    await writeResultSheet(sheetPath, columns, sheetRows())
    return sheetPath
  }
  const directory = await makeTempDirectory('batch-results')
  try {
    const path = join(directory, 'results.csv')
    await writeResultSheet(path, columns, sheetRows())
    await bucket.uploadFile(batchResultsKey(batchId), path, 'text/csv; charset=utf-8')
    return batchResultsKey(batchId)
  } finally {
    await rm(directory, {recursive: true, force: true})
  }
}
