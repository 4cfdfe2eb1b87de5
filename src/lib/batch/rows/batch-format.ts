import {extname} from 'node:path'
import {EngineError} from '../../errors/engine-error.js'
import {BATCH_FORMATS} from '../../plan/render-options.js'

export {BATCH_FORMATS}
export type BatchFormat = (typeof BATCH_FORMATS)[number]

/** `--batch -`: rows from standard input. */
export const STDIN_BATCH = '-'

const BY_EXTENSION: Record<string, BatchFormat> = {
  '.json': 'json',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
}

/** What a batch file may hold, for error messages that must say what would have been accepted. */
export const ACCEPTED_BATCH_FORMATS =
  'a JSON array of row objects or {"rows": [...]} (.json), one row object per line (.jsonl, .ndjson), ' +
  'or a header row of variable ids and then one row per line (.csv, .tsv)'

/**
 * The format of `--batch`: `--batch-format` when given, otherwise the file's extension; standard
 * input (`-`) is JSON Lines unless told otherwise, since that is what tools stream. `field` names
 * where the path was written.
 */
export function batchFormatOf(path: string, requested?: BatchFormat, field = '--batch'): BatchFormat {
  if (requested) return requested
  if (path === STDIN_BATCH) return 'jsonl'
  const extension = extname(path).toLowerCase()
  const format = BY_EXTENSION[extension]
  if (format) return format
  throw new EngineError(
    'INVALID_FLAG',
    `${field} "${path}": cannot tell the format from ${extension ? `the extension "${extension}"` : 'a name without an extension'}; ` +
      `accepted are ${ACCEPTED_BATCH_FORMATS}. Rename the file or add --batch-format ${BATCH_FORMATS.join('|')}`,
    {batch: path, extension},
  )
}
