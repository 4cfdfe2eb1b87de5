import {rm} from 'node:fs/promises'
import {dirname, relative} from 'node:path'
import {ROW_STATUSES, type ManifestHead, type ManifestRow, type RowRecord, type RowStatus, type StatusCounts} from './batch-manifest.js'
import {journalPath, writeManifestFile} from './manifest-file.js'
import {ManifestJournal} from './manifest-journal.js'
import type {BatchJob} from './preflight.js'

/** Compaction (rewriting manifest.json) runs at most this often... */
const MIN_COMPACTION_INTERVAL_MS = 3000
/** ...and never takes more than 1/this of the time, so a batch 100x larger does not spend more of each row on it. */
const COMPACTION_COST_RATIO = 20

/**
 * The state of a running batch and its two files. Every row change goes to memory (an array slot
 * per row, so lookups by index are O(1)) and to the journal (`manifest.journal.jsonl`, one line,
 * flushed in groups); `manifest.json` keeps its schema and is rewritten atomically from memory and
 * the job spool every few seconds, as long as that costs under 1/20 of the time, and at the end.
 * A batch killed at any moment leaves a manifest plus a journal that together hold every
 * acknowledged change; `--resume` replays them.
 */
export class ManifestStore {
  private readonly statuses: Uint8Array
  /** Each row's record as JSON; undefined while a row is pending and was never anything else. */
  private readonly records: Array<string | undefined>
  private readonly tally: StatusCounts = {pending: 0, running: 0, completed: 0, failed: 0, skipped: 0}
  private timer: NodeJS.Timeout | undefined
  private compacting: Promise<void> | undefined
  private lastCompaction = {endedAt: 0, tookMs: 0}
  private failure: unknown

  private constructor(
    readonly path: string,
    private head: ManifestHead,
    private readonly jobs: () => AsyncIterable<BatchJob>,
    private journal: ManifestJournal | undefined,
    total: number,
    kept: ReadonlyMap<number, RowRecord>,
    capacity: number,
  ) {
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
  static async start(path: string, head: ManifestHead, total: number, jobs: () => AsyncIterable<BatchJob>, kept: ReadonlyMap<number, RowRecord> = new Map(), capacity = total): Promise<ManifestStore> {
    const store = new ManifestStore(path, head, jobs, undefined, total, kept, capacity)
    await store.writeManifest()
    store.journal = await ManifestJournal.open(journalPath(path))
    return store
  }

  get counts(): StatusCounts {
    return {...this.tally}
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
    await this.compact()
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
    const interval = Math.max(MIN_COMPACTION_INTERVAL_MS, COMPACTION_COST_RATIO * this.lastCompaction.tookMs)
    const wait = Math.max(0, this.lastCompaction.endedAt + interval - Date.now())
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.compact().catch((error: unknown) => (this.failure = error))
    }, wait)
    this.timer.unref()
  }

  /** Rewrites manifest.json from memory and empties the journal, which it then holds entirely. */
  private async compact(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    while (this.compacting) await this.compacting
    this.compacting = this.journal!.compact(() => this.writeManifest()).finally(() => (this.compacting = undefined))
    await this.compacting
  }

  private async writeManifest(): Promise<void> {
    const began = performance.now()
    const head: ManifestHead = {...this.head, updatedAt: new Date().toISOString(), counts: this.counts}
    await writeManifestFile(this.path, head, this.rows())
    this.lastCompaction = {endedAt: Date.now(), tookMs: performance.now() - began}
  }

  private async *rows(): AsyncGenerator<ManifestRow> {
    const directory = dirname(this.path)
    for await (const job of this.jobs()) {
      const {index, status, ...rest} = this.row(job.index)
      // Key order keeps the manifest readable: what and where first, the (long) variables last.
      yield {index, status, output: job.url ?? relative(directory, job.output), ...rest, variables: job.variables}
    }
  }
}

