import type {Readable} from 'node:stream'
import {readLines} from './read-lines.js'
import {isPlainObject, kindOf, splitRow, unreadableRow, type SourceRow} from './source-row.js'
import type {DeclarationsById} from './typed-values.js'

/**
 * Rows of a JSON Lines file: one row object per line, blank lines skipped. A line that is not a JSON
 * object is a problem of that row, named by its line number; the others are still read.
 */
export async function* jsonLinesRows(input: Readable, byId: DeclarationsById, fromStdin = false): AsyncGenerator<SourceRow> {
  let line = 0
  let index = 0
  for await (const raw of readLines(input)) {
    line++
    const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw
    if (text.trim() === '') continue
    const position = {index: index++, line}
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      yield {...position, ...unreadableRow(`not valid JSON (${(error as Error).message}); ${delimitedHint(text, fromStdin) ?? 'write one object per line, such as {"title": "Ada"}'}`)}
      continue
    }
    if (!isPlainObject(value)) {
      yield {...position, ...unreadableRow(`must be a JSON object of variable values, got ${kindOf(value)}`)}
      continue
    }
    yield {...position, written: value, ...splitRow(value, byId)}
  }
}

/**
 * A line of comma- or tab-separated words where a JSON object was expected is most likely a CSV
 * (or TSV) file read as JSON Lines: standard input is JSON Lines unless told otherwise, and `cat
 * rows.csv | engine render … --batch -` fails every row without saying why.
 */
function delimitedHint(text: string, fromStdin: boolean): string | undefined {
  const trimmed = text.trim()
  if (/^[[{"]/.test(trimmed) || !/[,\t]/.test(trimmed)) return undefined
  const format = trimmed.includes('\t') && !trimmed.includes(',') ? 'tsv' : 'csv'
  const where = fromStdin ? 'standard input is read as JSON Lines unless --batch-format says otherwise' : 'the file is read as JSON Lines'
  return `this looks like ${format.toUpperCase()}, and ${where}: add --batch-format ${format}`
}
