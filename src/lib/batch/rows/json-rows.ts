import type {Readable} from 'node:stream'
import {JSONParser} from '@streamparser/json'
import {EngineError} from '../../errors/engine-error.js'
import {ACCEPTED_BATCH_FORMATS} from './batch-format.js'
import {lineTooLong, MAX_LINE_BYTES} from './row-limits.js'
import {isPlainObject, kindOf, splitRow, unreadableRow, type SourceRow} from './source-row.js'
import type {DeclarationsById} from './typed-values.js'

/**
 * Rows of a `.json` batch file: a top-level array of row objects, or an object whose `rows` is one.
 * The document is parsed as a stream and each row is handed on as soon as it is complete, so no
 * more than one chunk of the file and the rows in it are held at once.
 */
export async function* jsonRows(input: Readable, byId: DeclarationsById, name: string): AsyncGenerator<SourceRow> {
  let parser: JSONParser | undefined
  const ready: SourceRow[] = []
  let failure: EngineError | undefined
  let index = 0
  const fail = (reason: string) => new EngineError('BATCH_PREFLIGHT', `--batch "${name}": ${reason}; nothing was rendered`, {batch: name})

  const start = (first: string) => {
    if (first !== '[' && first !== '{') throw fail(`must hold ${ACCEPTED_BATCH_FORMATS}; a .json file must start with [ or {`)
    // Only complete rows are emitted, and keepStack false drops each from its array once handed on.
    const created = new JSONParser({paths: [first === '[' ? '$.*' : '$.rows.*'], keepStack: false})
    created.onValue = ({value, parent}) => {
      if (!Array.isArray(parent)) {
        failure ??= fail('"rows" must be an array of row objects, such as {"rows": [{"title": "Ada"}]}')
        return
      }
      ready.push(jsonRow(value, index++, byId))
    }
    created.onError = (error) => {
      failure ??= fail(`not valid JSON (${error.message}); accepted are ${ACCEPTED_BATCH_FORMATS}`)
    }
    return created
  }

  input.setEncoding('utf8')
  let pending = ''
  // Characters read since the last complete row: one row may not grow past the line limit.
  let sinceRow = 0
  for await (const chunk of input as AsyncIterable<string>) {
    let text = chunk
    if (!parser) {
      pending += text
      const trimmed = pending.replace(/^\uFEFF/, '').trimStart()
      if (trimmed === '') continue
      parser = start(trimmed[0])
      text = trimmed
    }
    if (!failure) parser.write(text)
    if (failure) throw failure
    sinceRow = ready.length > 0 ? 0 : sinceRow + text.length
    if (sinceRow > MAX_LINE_BYTES) throw lineTooLong(name)
    yield* ready.splice(0)
  }
  if (!parser) throw fail(`is empty; it must hold ${ACCEPTED_BATCH_FORMATS}`)
  if (!parser.isEnded) parser.end()
  if (failure) throw failure
  yield* ready.splice(0)
}

function jsonRow(value: unknown, index: number, byId: DeclarationsById): SourceRow {
  if (!isPlainObject(value)) {
    return {index, ...unreadableRow(`must be a JSON object of variable values, got ${kindOf(value)}`)}
  }
  return {index, written: value, ...splitRow(value, byId)}
}
