import type {Readable} from 'node:stream'
import {readLines} from './read-lines.js'
import {isPlainObject, kindOf, splitRow, unreadableRow, type SourceRow} from './source-row.js'
import type {DeclarationsById} from './typed-values.js'

/**
 * Rows of a JSON Lines file: one row object per line, blank lines skipped. A line that is not a JSON
 * object is a problem of that row, named by its line number; the others are still read.
 */
export async function* jsonLinesRows(input: Readable, byId: DeclarationsById): AsyncGenerator<SourceRow> {
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
      yield {...position, ...unreadableRow(`not valid JSON (${(error as Error).message}); write one object per line, such as {"title": "Ada"}`)}
      continue
    }
    if (!isPlainObject(value)) {
      yield {...position, ...unreadableRow(`must be a JSON object of variable values, got ${kindOf(value)}`)}
      continue
    }
    yield {...position, written: value, ...splitRow(value, byId)}
  }
}
