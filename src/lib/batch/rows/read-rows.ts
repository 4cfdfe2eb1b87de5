import {createReadStream} from 'node:fs'
import {stat} from 'node:fs/promises'
import {pipeline, type Readable} from 'node:stream'
import {EngineError} from '../../errors/engine-error.js'
import type {VariableDeclaration} from '../../variables/variable-declaration.js'
import {batchFormatOf, STDIN_BATCH, type BatchFormat} from './batch-format.js'
import {delimitedRows} from './csv-rows.js'
import {jsonRows} from './json-rows.js'
import {jsonLinesRows} from './jsonl-rows.js'
import {limitRows, lineLimit} from './row-limits.js'
import type {SourceRow} from './source-row.js'
import type {DeclarationsById} from './typed-values.js'

export interface RowSource {
  /** Absolute path of the file, or `-` for standard input. */
  path: string
  format: BatchFormat
  /** What feeds `-` (default: the process's standard input). */
  stdin?: Readable
}

/** Where the rows come from: checks now that a file is there, so that nothing starts on a typo; `field` names where the path was written. */
export async function openRowSource(path: string, requested?: BatchFormat, stdin?: Readable, field = '--batch'): Promise<RowSource> {
  const format = batchFormatOf(path, requested, field)
  if (path === STDIN_BATCH) return {path, format, stdin}
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => error)
  if (info instanceof Error || !info.isFile()) {
    const why = info instanceof Error ? (info.code === 'ENOENT' ? 'the file does not exist' : `cannot be read (${info.code ?? info.message})`) : 'is not a file'
    throw new EngineError('BATCH_PREFLIGHT', `${field} "${path}": ${why}; nothing was rendered`, {batch: path})
  }
  return {path, format}
}

/**
 * The rows of a batch, one at a time in file order, as a stream: nothing but the row being read is
 * held. `declarations` type the values (CSV cells and JSON values alike) and tell variables from
 * row data and the output fields; without them (undefined) every field but the output fields is a
 * value, as written.
 */
export function readRows(source: RowSource, declarations: readonly VariableDeclaration[] | undefined): AsyncGenerator<SourceRow> {
  const raw = source.path === STDIN_BATCH ? (source.stdin ?? process.stdin) : createReadStream(source.path)
  const declared = declarations && new Map(declarations.map((declaration) => [declaration.id, declaration]))
  const name = source.path === STDIN_BATCH ? 'standard input' : source.path
  // A .json row is limited by its bytes in the parser; the other formats line by line, here.
  const input = source.format === 'json' ? raw : pipeline(raw, lineLimit(name), () => {})
  return limitRows(rowsOf(input, source.format, declared, name), name)
}

function rowsOf(input: Readable, format: BatchFormat, declared: DeclarationsById, name: string): AsyncGenerator<SourceRow> {
  switch (format) {
    case 'json':
      return jsonRows(input, declared, name)
    case 'jsonl':
      return jsonLinesRows(input, declared, name === 'standard input')
    case 'csv':
      return delimitedRows(input, ',', declared, name)
    case 'tsv':
      return delimitedRows(input, '\t', declared, name)
  }
}
