import {mkdir, rm} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {outputExtension, type FormatPlugin} from '../encode/format-plugin.js'
import {makeTempDirectory} from '../files/temp-directory.js'

/** A finished render whose result can be downloaded. */
export interface StoredOutput {
  requestId: string
  /** The file, or for frame-file formats (png-sequence) the directory of frames. */
  path: string
  isDirectory: boolean
  format: string
  bytes: number
  /** The poster image (`poster` in the request), written into the same render directory. */
  poster?: string
}

export interface OutputStoreOptions {
  /** Directory to keep outputs in; a private temporary directory (removed on close) when absent. */
  dir?: string
  /** Finished outputs kept; the oldest is deleted when one more finishes. */
  keep: number
}

/**
 * The server-owned directory of render outputs: each render writes into `<dir>/<requestId>/`,
 * which is removed when the render fails or is cancelled, when the output is deleted, or when
 * newer outputs push it past the retention count.
 */
export class OutputStore {
  private readonly finished = new Map<string, StoredOutput>()

  private constructor(
    readonly dir: string,
    private readonly keep: number,
    private readonly owned: boolean,
  ) {}

  static async open(options: OutputStoreOptions): Promise<OutputStore> {
    if (options.dir === undefined) return new OutputStore(await makeTempDirectory('serve'), options.keep, true)
    const dir = resolve(options.dir)
    await mkdir(dir, {recursive: true})
    return new OutputStore(dir, options.keep, false)
  }

  /** Where a render writes its output: `<dir>/<requestId>/<name><ext>` (a directory for frame files). */
  async prepare(requestId: string, name: string, format: FormatPlugin): Promise<string> {
    const renderDir = join(this.dir, requestId)
    await mkdir(renderDir, {recursive: true})
    return join(renderDir, name + (outputExtension(format) ?? ''))
  }

  /** Removes whatever a failed or cancelled render left behind. */
  async discard(requestId: string): Promise<void> {
    await rm(join(this.dir, requestId), {recursive: true, force: true})
  }

  async add(output: StoredOutput): Promise<void> {
    this.finished.set(output.requestId, output)
    while (this.finished.size > this.keep) {
      const oldest = this.finished.keys().next().value as string
      await this.remove(oldest)
    }
  }

  get(requestId: string): StoredOutput | undefined {
    return this.finished.get(requestId)
  }

  async remove(requestId: string): Promise<boolean> {
    if (!this.finished.delete(requestId)) return false
    await this.discard(requestId)
    return true
  }

  /** Forgets every output; deletes the directory only when the store created it. */
  async close(): Promise<void> {
    this.finished.clear()
    if (this.owned) await rm(this.dir, {recursive: true, force: true})
  }
}
