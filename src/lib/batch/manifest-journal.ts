import {open, rename, rm, type FileHandle} from 'node:fs/promises'
import {faultPoint} from '../trace/fault-point.js'

interface Waiting {
  line: string
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * The journal is flushed to the device (fdatasync) at most this often while it has lines that are
 * not. Each fdatasync makes the next append dirty its 4 KB page again, so one per change wrote 8 KB
 * a row for two lines of 70 and 230 bytes; a machine that loses power loses at most this much of
 * the journal, and `--resume` renders those rows again.
 */
const SYNC_INTERVAL_MS = 1000

/**
 * The append-only journal beside a batch manifest: one line per row change. Lines that arrive while
 * a write is in flight go out together in the next one (one write per group), so the cost per
 * change stays the same however many rows the batch has. A change is acknowledged once the
 * operating system holds it (a killed process, even `kill -9`, loses none) and reaches the device
 * within SYNC_INTERVAL_MS, at a compaction (the manifest is synced) and at close.
 *
 * Compaction rotates it: the journal becomes `<path>.old` and a new one takes every later change
 * while the manifest is rewritten, so rows never wait for a compaction; `.old` is removed once the
 * manifest holds it. A crash leaves the manifest and up to two journals, replayed oldest first.
 */
export class ManifestJournal {
  private readonly waiting: Waiting[] = []
  private flushing: Promise<void> | undefined
  private held = false
  private unsynced = false
  private syncing: Promise<void> | undefined
  private syncTimer: NodeJS.Timeout | undefined
  private lastSync = 0
  /** Bytes in the current journal file (since it was opened or last rotated by a compaction). */
  bytesSinceCompaction = 0
  /** Bytes this journal ever wrote, over every rotation. */
  bytesWritten = 0

  private constructor(
    readonly path: string,
    private file: FileHandle,
  ) {}

  /** Opens the journal at `path` empty: the manifest written just before holds everything both journals had. */
  static async open(path: string): Promise<ManifestJournal> {
    await rm(previousJournal(path), {force: true})
    const file = await open(path, 'w')
    return new ManifestJournal(path, file)
  }

  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({line, resolve, reject})
      this.kick()
    })
  }

  /**
   * Compacts: moves the journal aside (after the write in flight, while new lines queue for a few
   * milliseconds), runs `rewrite` (which writes the manifest from memory, so it holds everything
   * the journal moved aside had), then removes the moved journal.
   */
  async compact(rewrite: () => Promise<void>): Promise<void> {
    this.held = true
    try {
      await this.flushing
      await this.syncing
      const previous = this.file
      await rename(this.path, previousJournal(this.path))
      this.file = await open(this.path, 'w')
      this.bytesSinceCompaction = 0
      // The manifest rewrite below is synced and holds every line of the journal moved aside.
      this.unsynced = false
      await previous.close()
    } finally {
      this.held = false
      this.kick()
    }
    await faultPoint('compaction-rotated', () => this.bytesSinceCompaction > 0)
    await rewrite()
    await rm(previousJournal(this.path), {force: true})
  }

  async close(): Promise<void> {
    this.held = true
    clearTimeout(this.syncTimer)
    this.syncTimer = undefined
    await this.flushing
    await this.syncing
    if (this.unsynced) await this.sync()
    await this.file.close()
  }

  private kick(): void {
    if (this.flushing || this.held || this.waiting.length === 0) return
    this.flushing = this.flush().finally(() => {
      this.flushing = undefined
      this.kick()
    })
  }

  private async flush(): Promise<void> {
    const group = this.waiting.splice(0)
    try {
      const text = group.map((entry) => entry.line + '\n').join('')
      await this.file.write(text)
      const bytes = Buffer.byteLength(text)
      this.bytesSinceCompaction += bytes
      this.bytesWritten += bytes
      this.unsynced = true
      this.scheduleSync()
      for (const entry of group) entry.resolve()
    } catch (error) {
      for (const entry of group) entry.reject(error)
    }
  }

  private scheduleSync(): void {
    if (this.syncTimer) return
    this.syncTimer = setTimeout(
      () => {
        this.syncTimer = undefined
        if (this.unsynced && !this.syncing && !this.held) this.syncing = this.sync().finally(() => (this.syncing = undefined))
      },
      Math.max(0, this.lastSync + SYNC_INTERVAL_MS - Date.now()),
    )
    this.syncTimer.unref()
  }

  /** A failed sync is not a lost line (the system holds it): the next sync or the compaction tries again. */
  private async sync(): Promise<void> {
    this.unsynced = false
    this.lastSync = Date.now()
    await this.file.datasync().catch(() => (this.unsynced = true))
  }
}

/** Where a journal waits while a compaction writes the manifest that will hold it. */
export function previousJournal(path: string): string {
  return `${path}.old`
}
