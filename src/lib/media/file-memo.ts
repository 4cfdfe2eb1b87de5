import {stat} from 'node:fs/promises'

/**
 * Values computed from a file's content, kept for the life of this process while the file stays
 * the same (path, size, modification time and inode): batch rows and server renders that use the
 * same source probe and hash it once. A failed computation is not kept. At most `limit` entries;
 * the oldest goes first.
 */
export class FileMemo<T> {
  private readonly entries = new Map<string, Promise<T>>()

  constructor(private readonly limit = 256) {}

  async get(path: string, compute: () => Promise<T>): Promise<T> {
    const info = await stat(path).catch(() => undefined)
    // A file that cannot be read is left to `compute`, which reports it in its own words.
    if (!info) return compute()
    const key = `${path}\0${info.size}\0${info.mtimeMs}\0${info.ino}`
    const known = this.entries.get(key)
    if (known) return known
    const value = compute()
    this.entries.set(key, value)
    value.catch(() => this.entries.delete(key))
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!)
    return value
  }
}
