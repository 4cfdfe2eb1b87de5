import {rm} from 'node:fs/promises'
import {dirname, relative} from 'node:path'
import {ROW_STATUSES, zeroCounts, type ManifestHead, type ManifestRow, type RowRecord, type RowStatus, type StatusCounts} from './batch-manifest.js'
import {journalPath, skipPendingRecord, writeManifestFile} from './manifest-file.js'
import {ManifestJournal} from './manifest-journal.js'
import {testMilliseconds} from '../trace/test-milliseconds.js'
import type {BatchJob} from './preflight.js'

/** Compaction (rewriting manifest.json) runs at most this often... */
const MIN_COMPACTION_INTERVAL_MS = 3000
/** ...and never takes more than 1/this of the time, so a batch 100x larger does not spend more of each row on it... */
const COMPACTION_COST_RATIO = 20
/**
 * ...and only once the journal holds this fraction of the manifest's bytes: each rewrite then pays
 * for itself in journal lines, so the bytes written per row stay the same at 1,000 rows and at
 * 100,000 (a rewrite every few seconds alone writes the whole manifest again and again).
 */
const JOURNAL_FRACTION_OF_MANIFEST = 0.5

/**
 * Replaces MIN_COMPACTION_INTERVAL_MS where the store is not tuned in-process. Read only by tests
 * that run the CLI and need a compaction within a few rows (test/batch/kill-resume.test.ts).
 */
export const TEST_COMPACTION_INTERVAL_ENV = 'ENGINE_TEST_COMPACTION_INTERVAL_MS'

function defaultMinInterval(): number {
  return testMilliseconds(TEST_COMPACTION_INTERVAL_ENV, MIN_COMPACTION_INTERVAL_MS)
}

/** Tests set both to 0, as if rows took long enough for the time rules to allow a rewrite after every row: the byte rule alone then decides. */
export interface CompactionTuning {
  /** Default MIN_COMPACTION_INTERVAL_MS. */
  minIntervalMs?: number
  /** Default COMPACTION_COST_RATIO. */
  costRatio?: number
}

export interface StoreOptions extends CompactionTuning {
  /** One more than the highest row index, when it is above `total` (a shard's rows keep their index in the whole batch). */
  capacity?: number
  /**
   * Runs after each compaction while the batch runs (not the final one): the result sheet, so that
   * a running batch's sheet is never older than its manifest. Its time counts as the compaction's
   * (the cost rule holds it back too); a failure waits for the final write to be reported.
   */
  afterCompaction?: () => Promise<void>
}

/**
 * The state of a running batch and its two files. Every row change goes to memory (an array slot
 * per row, so lookups by index are O(1)) and to the journal (`manifest.journal.jsonl`, one line,
 * flushed in groups); `manifest.json` keeps its schema and is rewritten atomically from memory and
 * the job spool every few seconds, as long as that costs under 1/20 of the time and the journal has
 * grown to half the manifest's size, and at the end.
 * A batch killed at any moment leaves a manifest plus a journal that together hold every
 * acknowledged change; `--resume` replays them.
 */
export class ManifestStore {
  private readonly statuses: Uint8Array
  /** Each row's record as JSON; undefined while a row is pending and was never anything else. */
  private readonly records: Array<string | undefined>
  private readonly tally: StatusCounts = zeroCounts()
  private timer: NodeJS.Timeout | undefined
  private compacting: Promise<void> | undefined
  private lastCompaction = {endedAt: 0, tookMs: 0}
  private failure: unknown
  private manifestBytes = 0
  private manifestBytesWritten = 0
  private readonly minIntervalMs: number
  private readonly costRatio: number
  private readonly afterCompaction: (() => Promise<void>) | undefined

  private constructor(
    readonly path: string,
    private head: ManifestHead,
    private readonly jobs: () => AsyncIterable<BatchJob>,
    private journal: ManifestJournal | undefined,
    total: number,
    kept: ReadonlyMap<number, RowRecord>,
    capacity: number,
    tuning: Omit<StoreOptions, 'capacity'>,
  ) {
    this.minIntervalMs = tuning.minIntervalMs ?? defaultMinInterval()
    this.costRatio = tuning.costRatio ?? COMPACTION_COST_RATIO
    this.afterCompaction = tuning.afterCompaction
    this.statuses = new Uint8Array(capacity)
    this.records = new Array(capacity)
    this.tally.pending = total
    for (const [index, record] of kept) this.put(record.index === index ? record : {...record, index})
  }

  /**
   * Starts the files of a batch: `kept` are the rows carried over from an earlier run (`--resume`),
   * every other row is pending; the manifest is written at once and the journal starts empty.
   * `total` rows are in this manifest; `capacity` is one more than the highest row index (a shard's
   * rows keep their index in the whole batch).
   */
  static async start(
    path: string,
    head: ManifestHead,
    total: number,
    jobs: () => AsyncIterable<BatchJob>,
    kept: ReadonlyMap<number, RowRecord> = new Map(),
    {capacity = total, ...tuning}: StoreOptions = {},
  ): Promise<ManifestStore> {
    const store = new ManifestStore(path, head, jobs, undefined, total, kept, capacity, tuning)
    await store.writeManifest()
    store.journal = await ManifestJournal.open(journalPath(path))
    return store
  }

  get counts(): StatusCounts {
    return {...this.tally}
  }

  /** Bytes of bookkeeping written so far: every manifest rewrite and every journal line. */
  get bytesWritten(): number {
    return this.manifestBytesWritten + (this.journal?.bytesWritten ?? 0)
  }

  get manifestHead(): ManifestHead {
    return {...this.head, counts: this.counts}
  }

  status(index: number): RowStatus {
    return ROW_STATUSES[this.statuses[index]]
  }

  /** The row's record: its status and, once it ran, its outcome. */
  row(index: number): RowRecord {
    const record = this.records[index]
    return record === undefined ? {index, status: 'pending'} : (JSON.parse(record) as RowRecord)
  }

  /** Replaces one row's record (fields not in `entry` are dropped); resolves once it is on disk. */
  setRow(index: number, entry: Omit<RowRecord, 'index'>): Promise<void> {
    const {status, ...rest} = entry
    return this.record({index, status, ...rest})
  }

  /**
   * Every row still pending becomes skipped, for `reason`: one journal record stands for all of
   * them (replayed as such), so that stopping a batch costs the same whatever is left. Resolves
   * with how many rows it skipped, once the record is on disk.
   */
  async skipPending(reason: string): Promise<number> {
    if (this.failure) throw this.failure
    const pendingStatus = ROW_STATUSES.indexOf('pending')
    let skipped = 0
    for (let index = 0; index < this.statuses.length; index++) {
      if (this.statuses[index] !== pendingStatus) continue
      this.put({index, status: 'skipped', skippedReason: reason})
      skipped++
    }
    if (skipped > 0) await this.journal!.append(JSON.stringify(skipPendingRecord(reason)))
    return skipped
  }

  /** Adds fields to one row's record (its status and outcome stay). */
  patchRow(index: number, patch: Pick<RowRecord, 'webhook'>): Promise<void> {
    return this.record({...this.row(index), ...patch})
  }

  /** Records the batch's own webhook call; finish() writes it. */
  setWebhook(delivery: NonNullable<ManifestHead['webhook']>): void {
    this.head = {...this.head, webhook: delivery}
  }

  /** Marks the batch ended, writes the final manifest and removes the journal, which it holds entirely. */
  async finish(): Promise<void> {
    this.head = {...this.head, finishedAt: new Date().toISOString()}
    await this.compact(false)
    await this.close()
    await rm(journalPath(this.path), {force: true})
  }

  /** Stops the compaction timer and closes the journal; the files stay as they are. */
  async close(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    await this.compacting
    await this.journal?.close()
  }

  private async record(record: RowRecord): Promise<void> {
    if (this.failure) throw this.failure
    this.put(record)
    await this.journal!.append(JSON.stringify(record))
    this.schedule()
  }

  private put(record: RowRecord): void {
    const before = this.statuses[record.index]
    const after = ROW_STATUSES.indexOf(record.status)
    this.tally[ROW_STATUSES[before]]--
    this.tally[record.status]++
    this.statuses[record.index] = after
    this.records[record.index] = JSON.stringify(record)
  }

  private schedule(): void {
    if (this.timer || this.compacting) return
    if (this.journal!.bytesSinceCompaction < JOURNAL_FRACTION_OF_MANIFEST * this.manifestBytes) return
    const interval = Math.max(this.minIntervalMs, this.costRatio * this.lastCompaction.tookMs)
    const wait = Math.max(0, this.lastCompaction.endedAt + interval - Date.now())
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.compact().catch((error: unknown) => (this.failure = error))
    }, wait)
    this.timer.unref()
  }

  /** Rewrites manifest.json from memory and empties the journal, which it then holds entirely. */
  private async compact(running = true): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    while (this.compacting) await this.compacting
    this.compacting = this.journal!.compact(() => this.writeManifest(running ? this.afterCompaction : undefined)).finally(() => (this.compacting = undefined))
    await this.compacting
  }

  private async writeManifest(after?: () => Promise<void>): Promise<void> {
    const began = performance.now()
    const head: ManifestHead = {...this.head, updatedAt: new Date().toISOString(), counts: this.counts}
    this.manifestBytes = await writeManifestFile(this.path, head, this.rows())
    this.manifestBytesWritten += this.manifestBytes
    await after?.().catch(() => {})
    this.lastCompaction = {endedAt: Date.now(), tookMs: performance.now() - began}
  }

  private async *rows(): AsyncGenerator<ManifestRow> {
    const directory = dirname(this.path)
    for await (const job of this.jobs()) {
      const {index, status, ...rest} = this.row(job.index)
      // Key order keeps the manifest readable: what and where first, the (long) variables last.
      yield {index, status, output: job.url ?? relative(directory, job.output), ...rest, ...(job.data && {data: job.data}), variables: job.variables}
    }
  }
}

