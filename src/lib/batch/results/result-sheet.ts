import {extname} from 'node:path'
import {EngineError} from '../../errors/engine-error.js'
import {writeFileAtomic} from '../manifest-file.js'

/** The columns every result sheet ends with, after the row's own. */
export const RESULT_COLUMNS = ['status', 'output', 'sha256', 'bytes', 'duration_seconds', 'frames', 'poster', 'render_ms', 'warnings', 'error_code', 'error_message'] as const

/** A row's outcome in the sheet: `needs-review` is a completed row with a text-overflow warning; an unfinished batch also has `pending` and `running`. */
export type ResultStatus = 'succeeded' | 'failed' | 'skipped' | 'cached' | 'needs-review' | 'pending' | 'running'

/** One line of a result sheet: the row's own columns as read, then its outcome. */
export interface ResultSheetRow {
  /** The row's own columns, as read from the batch file. */
  columns: Record<string, unknown>
  status: ResultStatus
  /** A path (relative to the sheet's folder for a local batch) or an s3:// URL. */
  output: string
  sha256?: string
  bytes?: number
  durationSeconds?: number
  frames?: number
  poster?: string
  renderMs?: number
  /** Codes of the warnings that did not stop the row (text-overflow, page-error …). */
  warnings?: readonly string[]
  error?: {code: string; message: string}
}

export type ResultSheetFormat = 'csv' | 'jsonl'

/** `.csv` or `.jsonl` (also `.ndjson`), from the sheet's name; `field` names where it was written. */
export function resultSheetFormat(path: string, field = '--results'): ResultSheetFormat {
  const extension = extname(path).toLowerCase()
  if (extension === '.csv') return 'csv'
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl'
  throw new EngineError('INVALID_FLAG', `${field} "${path}": a result sheet is a .csv or a .jsonl file; name it results.csv or results.jsonl`, {field, path})
}

/**
 * The sheet's own columns: the rows' columns in the order first seen, a column named like one of
 * RESULT_COLUMNS renamed `input_<name>` so that the sheet never has two columns of one name.
 */
export function sheetHeader(rowColumns: Iterable<string>): {header: string[]; rename: ReadonlyMap<string, string>} {
  const reserved = new Set<string>(RESULT_COLUMNS)
  const rename = new Map<string, string>()
  const taken = new Set<string>()
  for (const column of rowColumns) {
    if (rename.has(column)) continue
    let name = reserved.has(column) ? `input_${column}` : column
    while (taken.has(name) || reserved.has(name)) name = `input_${name}`
    rename.set(column, name)
    taken.add(name)
  }
  return {header: [...rename.values(), ...RESULT_COLUMNS], rename}
}

/**
 * Writes a result sheet atomically (a reader sees the old sheet or the new one), streaming: the
 * rows come one at a time and go out in groups, so 100,000 rows take the memory of a few hundred.
 * `columns` are the rows' own column names (see sheetHeader); a row lacking one leaves it empty.
 * The batch, `engine batch results`, `engine batch merge` and the Lambda batch all write with this.
 */
export async function writeResultSheet(path: string, columns: Iterable<string>, rows: AsyncIterable<ResultSheetRow> | Iterable<ResultSheetRow>): Promise<void> {
  const format = resultSheetFormat(path)
  const {header, rename} = sheetHeader(columns)
  async function* lines(): AsyncGenerator<string> {
    if (format === 'csv') yield csvLine(header)
    let group = ''
    let count = 0
    for await (const row of rows) {
      const outcome = outcomeCells(row)
      if (format === 'csv') group += csvLine([...[...rename.keys()].map((column) => row.columns[column]), ...RESULT_COLUMNS.map((column) => outcome[column])])
      else group += JSON.stringify(Object.fromEntries([...[...rename].filter(([column]) => Object.hasOwn(row.columns, column)).map(([column, name]) => [name, row.columns[column]]), ...Object.entries(outcome).filter(([, value]) => value !== undefined)])) + '\n'
      if (++count % 256 === 0) {
        yield group
        group = ''
      }
    }
    if (group) yield group
  }
  await writeFileAtomic(path, lines(), 'result sheet')
}

function outcomeCells(row: ResultSheetRow): Record<(typeof RESULT_COLUMNS)[number], unknown> {
  return {
    status: row.status,
    output: row.output,
    sha256: row.sha256,
    bytes: row.bytes,
    duration_seconds: row.durationSeconds,
    frames: row.frames,
    poster: row.poster,
    render_ms: row.renderMs,
    warnings: row.warnings && row.warnings.length > 0 ? [...new Set(row.warnings)].join(' ') : undefined,
    error_code: row.error?.code,
    error_message: row.error?.message,
  }
}

/** A spreadsheet runs a cell starting with one of these as a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * One CSV record (RFC 4180, CRLF-free: `\n` ends it). Text that a spreadsheet would run as a
 * formula gets a leading `'`, which spreadsheets show as text; other values as JSON would write
 * them (objects and arrays as JSON text). Hand-written: quoting is five lines, not a dependency.
 */
export function csvLine(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(',') + '\n'
}

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return ''
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value)
  if (FORMULA_START.test(text)) text = `'${text}`
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}
