import {open, rename, rm, type FileHandle} from 'node:fs/promises'
import {faultPoint} from '../trace/fault-point.js'

interface Waiting {
  line: string
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * The append-only journal beside a batch manifest: one line per row change. Lines that arrive while
 * a write is in flight go out together in the next one (one write and one fdatasync per group), so
 * the cost per change stays the same however many rows the batch has, and a change is acknowledged
 * only once it is on disk.
 *
 * Compaction rotates it: the journal becomes `<path>.old` and a new one takes every later change
 * while the manifest is rewritten, so rows never wait for a compaction; `.old` is removed once the
 * manifest holds it. A crash leaves the manifest and up to two journals, replayed oldest first.
 */
export class ManifestJournal {
  private readonly waiting: Waiting[] = []
  private flushing: Promise<void> | undefined
  private held = false
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
      const previous = this.file
      await rename(this.path, previousJournal(this.path))
      this.file = await open(this.path, 'w')
      this.bytesSinceCompaction = 0
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
    await this.flushing
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
      await this.file.datasync()
      for (const entry of group) entry.resolve()
    } catch (error) {
      for (const entry of group) entry.reject(error)
    }
  }
}

/** Where a journal waits while a compaction writes the manifest that will hold it. */
export function previousJournal(path: string): string {
  return `${path}.old`
}
