import {pipeline, type Readable} from 'node:stream'
import {parse, type Info} from 'csv-parse'
import {EngineError} from '../../errors/engine-error.js'
import type {DeclarationsById} from './typed-values.js'
import {typeCell} from './csv-cells.js'
import {lineTooLong, MAX_COLUMNS, MAX_LINE_BYTES, tooManyColumns} from './row-limits.js'
import {DOWNLOAD_NAME_FIELD, downloadNameField, OUTPUT_FIELDS, outputProblem, type RowFieldProblem, type SourceRow} from './source-row.js'

/**
 * Rows of a CSV or TSV file: a header row of variable ids (and optionally an `output`/`outputKey`
 * column), then one row per record. Quoting follows RFC 4180 (commas, quotes and newlines inside a
 * quoted field), CRLF and a UTF-8 BOM are accepted; cells are typed by the declarations. Line
 * numbers are those of the file, a record spanning several lines being named by its first.
 */
export async function* delimitedRows(
  input: Readable,
  delimiter: ',' | '\t',
  byId: DeclarationsById,
  name: string,
): AsyncGenerator<SourceRow> {
  // max_record_size bounds a record spanning lines (quoted newlines), which no line limit sees.
  // pipeline, not pipe: a failure of the input (a line past its limit) must end the parser too.
  const parser = pipeline(input, parse({delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, info: true, max_record_size: MAX_LINE_BYTES}), () => {})
  let header: string[] | undefined
  let index = 0
  let endOfLast = 0
  let emptyBefore = 0
  try {
    for await (const {record, info} of parser as AsyncIterable<{record: string[]; info: Info}>) {
      const line = endOfLast + 1 + (info.empty_lines - emptyBefore)
      endOfLast = info.lines
      emptyBefore = info.empty_lines
      if (!header) {
        header = readHeader(record, name, line)
        continue
      }
      yield typedRow(record, header, byId, {index: index++, line})
    }
  } catch (error) {
    if (error instanceof EngineError) throw error
    const at = (error as {lines?: number}).lines
    if ((error as {code?: string}).code === 'CSV_MAX_RECORD_SIZE') throw lineTooLong(name, at)
    throw new EngineError('BATCH_PREFLIGHT', `--batch "${name}"${at ? ` line ${at}` : ''}: not valid ${delimiter === ',' ? 'CSV' : 'TSV'} (${(error as Error).message}); nothing was rendered`, {
      batch: name,
      line: at,
    })
  }
}

function readHeader(record: string[], name: string, line: number): string[] {
  if (record.length > MAX_COLUMNS) throw tooManyColumns(`--batch "${name}" line ${line}`, record.length, {batch: name, line})
  const header = record.map((cell) => cell.trim())
  const fail = (reason: string) =>
    new EngineError('BATCH_PREFLIGHT', `--batch "${name}" line ${line}: ${reason}; the first row names a variable id per column, such as title,color`, {batch: name, line})
  const unnamed = header.findIndex((cell) => cell === '')
  if (unnamed >= 0) throw fail(`column ${unnamed + 1} of the header has no name`)
  const repeated = header.find((cell, position) => header.indexOf(cell) !== position)
  if (repeated !== undefined) throw fail(`the header names "${repeated}" twice`)
  return header
}

function typedRow(record: string[], header: readonly string[], byId: DeclarationsById, position: {index: number; line: number}): SourceRow {
  const problems: RowFieldProblem[] = []
  if (record.length !== header.length) problems.push({reason: `has ${record.length} cells; the header has ${header.length}`})
  const written: Record<string, unknown> = {}
  const values: Record<string, unknown> = {}
  const data: Record<string, unknown> = {}
  const columns = Object.fromEntries(header.map((column, position) => [column, record[position] ?? '']))
  let output: string | undefined
  let downloadName: string | undefined
  header.forEach((column, position) => {
    const cell = record[position] ?? ''
    const declaration = byId?.get(column)
    if (column === DOWNLOAD_NAME_FIELD && !declaration) {
      if (cell !== '') written[column] = cell
      downloadName = downloadNameField(`column "${column}"`, cell).name
      return
    }
    if ((OUTPUT_FIELDS as readonly string[]).includes(column) && !declaration) {
      if (cell === '') return
      written[column] = cell
      const problem = outputProblem(`column "${column}"`, cell)
      if (problem) problems.push(problem)
      else if (output !== undefined && output !== cell) problems.push({field: `column "${column}"`, reason: `"${cell}" differs from the row's other output column "${output}"; keep one of them`})
      else output = cell
      return
    }
    const typed = typeCell(declaration, cell)
    if ('empty' in typed) return
    if ('problem' in typed) {
      problems.push({field: `column "${column}"`, reason: typed.problem})
      return
    }
    written[column] = typed.value
    if (declaration || !byId) values[column] = typed.value
    else data[column] = typed.value
  })
  return {...position, written, values, data, columns, output, ...(downloadName !== undefined && {downloadName}), problems}
}
