import {randomUUID} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {mkdir, open, rename, rm} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {JSONParser} from '@streamparser/json'
import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'
import {previousJournal} from './manifest-journal.js'
import {readLines} from './rows/read-lines.js'
import {manifestHeadSchema, manifestRowSchema, zeroCounts, type BatchManifest, type ManifestHead, type ManifestRow, type RowRecord} from './batch-manifest.js'

/** The journal of `manifest.json`: `manifest.journal.jsonl` beside it. */
export function journalPath(manifestPath: string): string {
  return join(dirname(manifestPath), basename(manifestPath, '.json') + '.journal.jsonl')
}

/**
 * Writes `text` pieces to a temporary file next to `path`, flushes it and renames it over `path`:
 * a reader (or a crash) sees the old file or the new one, never a torn one.
 */
export async function writeFileAtomic(path: string, pieces: string | AsyncIterable<string> | Iterable<string>, what = 'batch manifest'): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID().slice(0, 8)}.tmp`)
  try {
    await mkdir(dirname(path), {recursive: true})
    const file = await open(temporary, 'w')
    try {
      if (typeof pieces === 'string') await file.writeFile(pieces)
      else for await (const piece of pieces) await file.write(piece)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, {force: true}).catch(() => {})
    throw new EngineError('INTERNAL', `cannot write the ${what} ${path}: ${(error as Error).message}`, {path}, {cause: error})
  }
}

/** Rows serialised this many at a time: one write call each, whatever the batch's size. */
const ROWS_PER_WRITE = 256

/**
 * Writes a manifest whose rows come as a stream: the head as indented JSON, then one line per row,
 * so that a manifest of 100,000 rows is never one string and stays easy to read and grep.
 * Resolves with the bytes written.
 */
export async function writeManifestFile(path: string, head: ManifestHead, rows: AsyncIterable<ManifestRow>): Promise<number> {
  let bytes = 0
  async function* counted(): AsyncGenerator<string> {
    for await (const piece of pieces()) {
      bytes += Buffer.byteLength(piece)
      yield piece
    }
  }
  async function* pieces(): AsyncGenerator<string> {
    const text = JSON.stringify(head, null, 2)
    yield text.slice(0, text.lastIndexOf('}')).trimEnd() + ',\n  "rows": ['
    let group: string[] = []
    let first = true
    for await (const row of rows) {
      group.push(JSON.stringify(row))
      if (group.length === ROWS_PER_WRITE) {
        yield (first ? '\n    ' : ',\n    ') + group.join(',\n    ')
        first = false
        group = []
      }
    }
    if (group.length > 0) yield (first ? '\n    ' : ',\n    ') + group.join(',\n    ')
    yield first && group.length === 0 ? ']\n}\n' : '\n  ]\n}\n'
  }
  await writeFileAtomic(path, counted())
  return bytes
}

/**
 * Reads a manifest as a stream: each row, checked, goes to `onRow` as it is parsed; the head is
 * returned. Undefined when there is no file; a file that is not a manifest of this version is a
 * BATCH_PREFLIGHT error that says what to do.
 */
export async function readManifestFile(path: string, onRow: (row: ManifestRow) => void, flag = '--resume'): Promise<ManifestHead | undefined> {
  const rows = manifestRows(path, flag)
  for (let next = await rows.next(); ; next = await rows.next()) {
    if (next.done) return next.value
    onRow(next.value)
  }
}

/**
 * The rows of a manifest file, checked, one at a time as they are parsed (a chunk of the file at a
 * time); returns its head. `flag` names what was reading it, for messages.
 */
export async function* manifestRows(path: string, flag = '--resume'): AsyncGenerator<ManifestRow, ManifestHead | undefined> {
  const fail = (reason: string) =>
    new EngineError('BATCH_PREFLIGHT', `${flag}: ${path} ${reason}; ${flag === '--resume' ? 'remove it and run without --resume' : 'give the manifest.json a batch wrote'}`, {manifest: path})
  const headKeys = Object.keys(manifestHeadSchema.shape)
  const head: Record<string, unknown> = {}
  let failure: EngineError | undefined
  const ready: ManifestRow[] = []
  const parser = new JSONParser({paths: ['$.rows.*', ...headKeys.map((key) => `$.${key}`)], keepStack: false})
  parser.onValue = ({value, key, parent}) => {
    if (failure) return
    if (Array.isArray(parent)) {
      const row = manifestRowSchema.safeParse(value)
      if (row.success) ready.push(row.data)
      else failure = fail(`is not a batch manifest of this version (rows.${String(key)}.${row.error.issues[0].path.join('.')}: ${row.error.issues[0].message})`)
    } else head[key as string] = value
  }
  parser.onError = (error) => (failure ??= fail(`is not valid JSON (${error.message})`))
  const chunks = createReadStream(path, {encoding: 'utf8'})
  try {
    for await (const chunk of chunks) {
      parser.write(chunk as string)
      if (failure) throw failure
      yield* ready.splice(0)
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    if (error instanceof EngineError) throw error
    throw new EngineError('BATCH_PREFLIGHT', `${flag}: cannot read ${path} (${(error as Error).message})`, {manifest: path})
  } finally {
    chunks.destroy()
  }
  if (!parser.isEnded) throw failure ?? fail('is cut short (not valid JSON)')
  if (failure) throw failure
  const parsed = manifestHeadSchema.safeParse(head)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw fail(`is not a batch manifest of this version (${issue.path.join('.') || 'file'}: ${issue.message})`)
  }
  return parsed.data
}

/**
 * Replays the journals beside a manifest (the one a compaction moved aside, if a crash left it,
 * then the current one): each complete line, in order. A last line cut short by a crash (or
 * anything after it) is ignored: its change was never acknowledged.
 */
export async function readJournal(manifestPath: string, onRecord: (record: RowRecord) => void, onSkipPending: (reason: string) => void = () => {}): Promise<void> {
  const current = journalPath(manifestPath)
  for (const path of [previousJournal(current), current]) await replay(path, onRecord, onSkipPending)
}

/** The journal line that skips every row still pending (an interrupted batch): one line, not one per row. */
export function skipPendingRecord(reason: string): {skipPending: string; at: string} {
  return {skipPending: reason, at: new Date().toISOString()}
}

const skipPendingSchema = z.object({skipPending: z.string(), at: z.string()})

async function replay(path: string, onRecord: (record: RowRecord) => void, onSkipPending: (reason: string) => void): Promise<void> {
  try {
    for await (const line of readLines(createReadStream(path))) {
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        return
      }
      const skip = skipPendingSchema.safeParse(parsed)
      if (skip.success) {
        onSkipPending(skip.data.skipPending)
        continue
      }
      const record = recordSchema.safeParse(parsed)
      if (!record.success) return
      onRecord(record.data)
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
}

const recordSchema = manifestRowSchema.omit({output: true, variables: true, data: true})

/**
 * The whole manifest of a batch, as its files say now (the journal replayed over `manifest.json`),
 * in memory: for tools and tests that look at a batch; a running batch never builds this.
 */
export async function readManifest(path: string): Promise<BatchManifest | undefined> {
  const rows: ManifestRow[] = []
  const head = await readManifestFile(path, (row) => rows.push(row))
  if (!head) return undefined
  const byIndex = new Map(rows.map((row, position) => [row.index, position]))
  const apply = (record: RowRecord) => {
    const position = byIndex.get(record.index)
    if (position === undefined) return
    const {output, variables, data} = rows[position]
    const {index, status, ...rest} = record
    rows[position] = {index, status, output, ...rest, ...(data && {data}), variables}
  }
  await readJournal(path, apply, (reason) => {
    for (const row of rows) if (row.status === 'pending') apply({index: row.index, status: 'skipped', skippedReason: reason})
  })
  const counts = zeroCounts()
  for (const row of rows) counts[row.status]++
  return {...head, counts, rows}
}
