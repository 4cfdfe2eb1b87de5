import {relative} from 'node:path'
import type {BatchEvent, BatchEventListener, BatchSummary} from '../lib/batch/index.js'
import {EngineError} from '../lib/errors/engine-error.js'
import {describeWarning} from './render-progress.js'

/** `--json`: every batch event, row render events included, as one line of JSON on stdout. */
export function batchJsonLines(event: BatchEvent): void {
  process.stdout.write(JSON.stringify(event) + '\n')
}

function display(path: string): string {
  return relative(process.cwd(), path) || path
}

/**
 * One line per row status change, so that the log reads the same with any number of rows in
 * flight; warnings go to stderr. Frame progress inside a row is left to `--json`.
 */
export function batchLines(log: (line: string) => void): BatchEventListener {
  return (event) => {
    if (event.type === 'batch-start') {
      const already = event.rows - event.toRender
      log(`Rendering ${event.toRender} of ${event.rows} rows, ${event.concurrency} at a time${already > 0 ? ` (${already} already completed)` : ''}; manifest ${display(event.manifest)}`)
    } else if (event.type === 'row') {
      const where = `row ${event.row} (${display(event.output)})`
      if (event.status === 'running') log(`${where}: rendering`)
      else if (event.status === 'completed') log(`${where}: done in ${((event.renderMs ?? 0) / 1000).toFixed(1)} s`)
      else if (event.status === 'failed') log(`${where}: failed [${event.error?.code}] ${event.error?.message}`)
      else if (event.status === 'skipped') log(`${where}: skipped, ${event.skippedReason}`)
    } else if (event.type === 'warning') {
      const row = 'row' in event ? `row ${event.row}: ` : ''
      process.stderr.write(describeWarning({...event, message: row + event.message}) + '\n')
    } else if (event.type === 'batch-done') {
      const {completed, failed, skipped} = event.counts
      log(`${completed} completed, ${failed} failed, ${skipped} skipped in ${(event.elapsedMs / 1000).toFixed(1)} s (${event.rowsPerMinute} rows/min); manifest ${display(event.manifest)}`)
    }
  }
}

/** A batch with failed rows exits non-zero; the error names each failed row. */
export function assertNoFailedRows(summary: BatchSummary): void {
  if (summary.failed.length === 0) return
  const total = Object.values(summary.counts).reduce((sum, count) => sum + count, 0)
  const rows = summary.failed.map((row) => `  - row ${row.row}: [${row.code}] ${row.message}`).join('\n')
  throw new EngineError(
    'BATCH_ROW_FAILED',
    `${summary.failed.length} of ${total} rows failed:\n${rows}\nDetails are in ${display(summary.manifest)}; run again with --resume to render only the rows that are not completed.`,
    {failed: summary.failed, manifest: summary.manifest},
  )
}
