import {createWriteStream} from 'node:fs'
import {rename, rm} from 'node:fs/promises'
import {pipeline} from 'node:stream/promises'
import yazl from 'yazl'

export interface ZipEntry {
  /** Path inside the zip, with forward slashes. */
  name: string
  /** A file on disk, or the contents themselves. */
  source: string | Buffer
  /** 0o755 for programs; files default to 0o644. */
  mode?: number
  /** Already-compressed contents (brotli archives) are stored: deflating them costs time for nothing. */
  store?: boolean
}

// One fixed timestamp: the same inputs give the same bytes, so the content hash names the bundle.
const FIXED_MTIME = new Date('2000-01-01T00:00:00Z')

/**
 * Writes the entries, in the order given, into a zip at `path`. The zip is written under a
 * temporary name and renamed at the end: a failed build leaves nothing at `path`.
 */
export async function writeZip(path: string, entries: readonly ZipEntry[]): Promise<void> {
  const partial = `${path}.partial-${process.pid}`
  const zip = new yazl.ZipFile()
  for (const entry of entries) {
    const options = {mtime: FIXED_MTIME, mode: 0o100000 | (entry.mode ?? 0o644), compress: !entry.store}
    if (typeof entry.source === 'string') zip.addFile(entry.source, entry.name, options)
    else zip.addBuffer(entry.source, entry.name, options)
  }
  zip.end()
  try {
    await pipeline(zip.outputStream, createWriteStream(partial))
    await rename(partial, path)
  } catch (error) {
    await rm(partial, {force: true})
    throw error
  }
}
