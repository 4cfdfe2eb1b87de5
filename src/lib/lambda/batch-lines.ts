import {readFile} from 'node:fs/promises'
import {z} from 'zod'
import {EngineError, type ErrorJson} from '../errors/engine-error.js'
import {storageKeySchema} from '../render/storage-key.js'

/** One line of a render-batch JSONL file, as read. */
export type BatchLine =
  | {line: number; outputKey: string; variables: Record<string, unknown>}
  | {line: number; outputKey?: string; error: ErrorJson}

const lineSchema = z
  .object({
    outputKey: storageKeySchema,
    variables: z.record(z.string(), z.unknown()).default({}),
  })
  .strict()

/**
 * Reads a JSONL batch: one `{outputKey, variables}` object per line; blank lines are skipped and
 * line numbers are the file's. A line that cannot be used is returned with its error, so that it
 * is reported as failed-to-start while the other lines go ahead.
 */
export async function readBatchLines(path: string): Promise<BatchLine[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new EngineError('INVALID_FLAG', `--batch: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {path})
  }
  const lines = parseBatchLines(text)
  if (lines.length === 0) throw new EngineError('INVALID_FLAG', `--batch: "${path}" has no lines; write one {"outputKey": ..., "variables": {...}} object per line`, {path})
  return lines
}

export function parseBatchLines(text: string): BatchLine[] {
  const lines: BatchLine[] = []
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === '') return
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch (error) {
      lines.push({line, error: invalid(line, `not valid JSON (${(error as Error).message})`)})
      return
    }
    const parsed = lineSchema.safeParse(json)
    if (parsed.success) {
      lines.push({line, ...parsed.data})
      return
    }
    const outputKey = typeof (json as {outputKey?: unknown})?.outputKey === 'string' ? (json as {outputKey: string}).outputKey : undefined
    const problems = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys' ? `${issue.keys.join(', ')}: not a batch field (use outputKey and variables)` : `${issue.path.join('.') || 'line'}: ${issue.message}`,
    )
    lines.push({line, outputKey, error: invalid(line, problems.join('; '))})
  })
  return lines
}

function invalid(line: number, why: string): ErrorJson {
  return {code: 'INVALID_REQUEST', message: `line ${line}: ${why}; each line must be an object such as {"outputKey": "out/a.mp4", "variables": {"name": "Ada"}}`}
}
