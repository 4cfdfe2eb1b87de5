import {createHash} from 'node:crypto'
import {readFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'

export interface BatchFile {
  /** Absolute path. */
  path: string
  /** Rows as written; each is checked by the preflight, so a malformed one is reported with its index. */
  rows: unknown[]
  /** Hash of the rows (not of the file's formatting): a resumed batch must have the same rows. */
  rowsSha256: string
}

const batchFileSchema = z.union([z.array(z.unknown()), z.object({rows: z.array(z.unknown())})])

/** Reads `--batch`: a JSON array of rows, or an object with a `rows` array; `field` names where the path was written. */
export async function readBatchFile(path: string, field = '--batch'): Promise<BatchFile> {
  const absolute = resolve(path)
  const fail = (reason: string) =>
    new EngineError('BATCH_PREFLIGHT', `${field} "${path}": ${reason}; nothing was rendered`, {batch: absolute})
  let text: string
  try {
    text = await readFile(absolute, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw fail(code === 'ENOENT' ? 'the file does not exist' : `cannot be read (${code ?? (error as Error).message})`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw fail(`not valid JSON (${(error as Error).message})`)
  }
  const parsed = batchFileSchema.safeParse(json)
  if (!parsed.success) {
    throw fail('must be a JSON array of variable objects, or an object with a "rows" array, such as [{"title": "Ada"}, {"title": "Grace"}]')
  }
  const rows = Array.isArray(parsed.data) ? parsed.data : parsed.data.rows
  return {path: absolute, rows, rowsSha256: sha256(JSON.stringify(rows))}
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
