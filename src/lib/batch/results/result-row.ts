import {relative} from 'node:path'
import type {RowRecord} from '../batch-manifest.js'
import type {ResultSheetRow, ResultStatus} from './result-sheet.js'

/** The warning that makes a completed row `needs-review` in the sheet: text that does not fit (the check pass). */
export const REVIEW_WARNING = 'text-overflow'

/**
 * A row's status in the sheet: a completed (or cached) row with a text-overflow warning needs
 * review, a completed one succeeded; `cached` (a render reused from the cache) and the others keep
 * their manifest name.
 */
export function resultStatus(status: string, warnings?: readonly {code: string}[]): ResultStatus {
  const done = status === 'completed' || status === 'cached'
  if (done && warnings?.some((warning) => warning.code === REVIEW_WARNING)) return 'needs-review'
  if (status === 'completed') return 'succeeded'
  return status as ResultStatus
}

/** What a result line needs of a row: its record (status and outcome) and where its files are. */
export interface RowOutcome {
  record: Omit<RowRecord, 'index'> & {status: string}
  /** The row's own columns as read. */
  columns: Record<string, unknown>
  /** Absolute path of the output (or an s3:// URL). */
  output: string
  /** Absolute path of the poster (or an s3:// URL). */
  poster?: string
}

/** One line of a local batch's sheet; paths are written relative to the sheet's folder, as the manifest writes them relative to its own. */
export function resultRow(outcome: RowOutcome, sheetDirectory: string): ResultSheetRow {
  const {record} = outcome
  const shown = (path: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? path : relative(sheetDirectory, path) || path)
  return {
    columns: outcome.columns,
    status: resultStatus(record.status, record.warnings),
    output: shown(outcome.output),
    sha256: record.sha256,
    bytes: record.bytes,
    durationSeconds: record.durationSeconds,
    frames: record.totalFrames,
    poster: outcome.poster === undefined ? undefined : shown(outcome.poster),
    renderMs: record.renderMs,
    warnings: record.warnings?.map((warning) => warning.code),
    // A skipped row says why in error_message, with no code: nothing failed.
    error: record.status === 'failed' ? record.error : record.status === 'skipped' && record.skippedReason ? {code: '', message: record.skippedReason} : undefined,
  }
}
