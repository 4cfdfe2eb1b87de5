import {open, type FileHandle} from 'node:fs/promises'

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
 */
export class ManifestJournal {
  private readonly waiting: Waiting[] = []
  private flushing: Promise<void> | undefined
  private held = false

  private constructor(private readonly file: FileHandle) {}

  /** Opens the journal at `path` empty: the manifest written just before holds everything it had. */
  static async open(path: string): Promise<ManifestJournal> {
    const file = await open(path, 'a')
    await file.truncate(0)
    return new ManifestJournal(file)
  }

  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({line, resolve, reject})
      this.kick()
    })
  }

  /**
   * Runs `during` with no journal write in flight and none starting (lines keep queueing), then
   * empties the journal: for compaction, where `during` has written everything acknowledged so far
   * into the manifest.
   */
  async compact(during: () => Promise<void>): Promise<void> {
    this.held = true
    try {
      await this.flushing
      await during()
      await this.file.truncate(0)
    } finally {
      this.held = false
      this.kick()
    }
  }

  async close(): Promise<void> {
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
      await this.file.write(group.map((entry) => entry.line + '\n').join(''))
      await this.file.datasync()
      for (const entry of group) entry.resolve()
    } catch (error) {
      for (const entry of group) entry.reject(error)
    }
  }
}
