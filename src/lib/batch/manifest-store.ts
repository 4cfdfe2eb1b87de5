import {randomUUID} from 'node:crypto'
import {mkdir, open, readFile, rename, rm} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {countStatuses, manifestSchema, type BatchManifest, type ManifestRow} from './batch-manifest.js'

/**
 * Owns the manifest file of a running batch. Every change is written to a temporary file next to
 * it, flushed, and renamed over it, one write at a time: a batch killed at any moment leaves the
 * last complete manifest, never a torn one.
 */
export class ManifestStore {
  private queue: Promise<void> = Promise.resolve()

  constructor(
    readonly path: string,
    private manifest: BatchManifest,
  ) {}

  get current(): BatchManifest {
    return this.manifest
  }

  row(index: number): ManifestRow {
    const row = this.manifest.rows.find((entry) => entry.index === index)
    if (!row) throw new EngineError('INTERNAL', `the batch manifest has no row ${index}`)
    return row
  }

  /** Replaces one row's entry (fields not in `entry` are dropped) and saves. */
  setRow(index: number, entry: Omit<ManifestRow, 'index' | 'output' | 'variables'>): Promise<void> {
    const {output, variables} = this.row(index)
    const {status, ...rest} = entry
    // Key order keeps the manifest readable: what and where first, the (long) variables last.
    this.manifest.rows = this.manifest.rows.map((row) => (row.index === index ? {index, status, output, ...rest, variables} : row))
    return this.save()
  }

  /** Adds fields to one row's entry (its status and outcome stay) and saves. */
  patchRow(index: number, patch: Pick<ManifestRow, 'webhook'>): Promise<void> {
    this.manifest.rows = this.manifest.rows.map((row) => {
      if (row.index !== index) return row
      const {variables, ...rest} = row
      return {...rest, ...patch, variables}
    })
    return this.save()
  }

  /** Records the batch's own webhook call and saves. */
  setWebhook(delivery: NonNullable<BatchManifest['webhook']>): Promise<void> {
    const {rows, ...head} = this.manifest
    this.manifest = {...head, webhook: delivery, rows}
    return this.save()
  }

  finish(): Promise<void> {
    this.manifest.finishedAt = new Date().toISOString()
    return this.save()
  }

  save(): Promise<void> {
    const write = this.queue.then(() => {
      this.manifest.updatedAt = new Date().toISOString()
      this.manifest.counts = countStatuses(this.manifest.rows)
      return writeFileAtomic(this.path, JSON.stringify(this.manifest, null, 2) + '\n')
    })
    // A failed write must not stop later ones from being attempted; its caller still sees it.
    this.queue = write.catch(() => {})
    return write
  }
}

export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID().slice(0, 8)}.tmp`)
  try {
    await mkdir(dirname(path), {recursive: true})
    const file = await open(temporary, 'w')
    try {
      await file.writeFile(text)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, {force: true}).catch(() => {})
    throw new EngineError('INTERNAL', `cannot write the batch manifest ${path}: ${(error as Error).message}`, {path}, {cause: error})
  }
}

/** The manifest at `path`, undefined when there is none; a file that is not one is an error. */
export async function readManifest(path: string): Promise<BatchManifest | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new EngineError('BATCH_PREFLIGHT', `--resume: cannot read ${path} (${(error as Error).message})`, {manifest: path})
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new EngineError('BATCH_PREFLIGHT', `--resume: ${path} is not valid JSON (${(error as Error).message}); remove it and run without --resume`, {
      manifest: path,
    })
  }
  const parsed = manifestSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new EngineError(
      'BATCH_PREFLIGHT',
      `--resume: ${path} is not a batch manifest of this version (${issue.path.join('.') || 'file'}: ${issue.message}); remove it and run without --resume`,
      {manifest: path},
    )
  }
  return parsed.data
}
