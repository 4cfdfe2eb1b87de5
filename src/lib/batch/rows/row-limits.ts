import {Transform, type TransformCallback} from 'node:stream'
import {EngineError} from '../../errors/engine-error.js'
import type {SourceRow} from './source-row.js'

/** Longest cell (a value of a row) in characters: room for a paragraph or a data URL, not a file. */
export const MAX_CELL_CHARS = 1_000_000
/** Longest line of a CSV, TSV or JSON Lines file, record of a CSV or row of a .json file, in bytes. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024
/** Most columns (keys) of a row: as many variables as `engine serve` takes in one request. */
export const MAX_COLUMNS = 1000

const NEWLINE = 0x0a

/**
 * Passes a rows file on, failing as soon as one line grows past MAX_LINE_BYTES: a file with a
 * single line of 200 MB is refused after 4 MB are read, without holding the rest.
 */
export function lineLimit(name: string): Transform {
  let lineBytes = 0
  let line = 1
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      let from = 0
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) {
        if (lineBytes + at - from > MAX_LINE_BYTES) break
        lineBytes = 0
        line++
        from = at + 1
      }
      lineBytes += chunk.length - from
      if (lineBytes > MAX_LINE_BYTES) callback(lineTooLong(name, line))
      else callback(null, chunk)
    },
  })
}

export function lineTooLong(name: string, line?: number): EngineError {
  return new EngineError(
    'BATCH_LINE_TOO_LONG',
    `--batch "${name}"${line === undefined ? '' : ` line ${line}`}: a ${line === undefined ? 'row' : 'line'} is longer than ${MAX_LINE_BYTES} bytes, the limit; nothing was rendered. Keep media out of the rows (name it by URL or path)`,
    {batch: name, line, limit: MAX_LINE_BYTES},
  )
}

/** The rows as they are read, refused at the first with too many columns or a cell past MAX_CELL_CHARS. */
export async function* limitRows(rows: AsyncIterable<SourceRow>, name: string): AsyncGenerator<SourceRow> {
  for await (const row of rows) {
    const at = `--batch "${name}" ${row.line === undefined ? `row ${row.index}` : `line ${row.line}`}`
    const columns = Object.keys(row.written)
    if (columns.length > MAX_COLUMNS) throw tooManyColumns(at, columns.length, {batch: name, line: row.line, row: row.index})
    for (const column of columns) {
      const cell = row.written[column]
      const length = typeof cell === 'string' ? cell.length : cell !== null && typeof cell === 'object' ? JSON.stringify(cell).length : 0
      if (length > MAX_CELL_CHARS) {
        throw new EngineError('BATCH_CELL_TOO_LARGE', `${at}, column ${JSON.stringify(column.slice(0, 80))}: the cell has ${length} characters, over the limit of ${MAX_CELL_CHARS}; nothing was rendered`, {
          batch: name,
          line: row.line,
          row: row.index,
          limit: MAX_CELL_CHARS,
        })
      }
    }
    yield row
  }
}

export function tooManyColumns(at: string, count: number, details: object): EngineError {
  return new EngineError('BATCH_TOO_MANY_COLUMNS', `${at}: ${count} columns, over the limit of ${MAX_COLUMNS}; nothing was rendered`, {...details, limit: MAX_COLUMNS})
}
