import {lstat, readdir, readFile, rm, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {cacheEntrySchema, ENTRY_FILE, type CacheEntry} from './cache-entry.js'

/** An entry directory's name: its key. Anything else in the cache directory is no entry. */
export const KEY_NAME = /^[0-9a-f]{64}$/
/** Where a store writes before its one rename; a kill leaves it behind, never an entry. */
export const STAGING_PREFIX = '.staging-'
/** A staging directory this old belongs to no running store. */
const STAGING_STALE_MS = 60 * 60_000

export interface ListedEntry {
  key: string
  bytes: number
  /** When a render last used it (entry.json's modification time). */
  lastUsed: Date
  entry: CacheEntry
}

/**
 * An entry's record if it can be trusted: a real directory (no link) named by its key, whose
 * entry.json parses, names that key and lists only plain files of the entry with their sizes;
 * otherwise undefined (the caller drops it). Its files' sha256 is checked when they are copied.
 */
export async function readEntry(directory: string, key: string): Promise<CacheEntry | undefined> {
  const folder = join(directory, key)
  const info = await lstat(folder).catch(() => undefined)
  if (!info?.isDirectory()) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(join(folder, ENTRY_FILE), 'utf8'))
  } catch {
    return undefined
  }
  const checked = cacheEntrySchema.safeParse(parsed)
  if (!checked.success || checked.data.key !== key) return undefined
  for (const file of checked.data.files) {
    const fileInfo = await lstat(join(folder, file.name)).catch(() => undefined)
    if (!fileInfo?.isFile() || fileInfo.size !== file.bytes) return undefined
  }
  return checked.data
}

/** Removes an entry: its record first, so that a removal cut short leaves no entry that reads as whole. */
export async function removeEntry(directory: string, key: string): Promise<void> {
  await rm(join(directory, key, ENTRY_FILE), {force: true})
  await rm(join(directory, key), {recursive: true, force: true})
}

/** Every trusted entry, least recently used first; untrusted ones are removed on the way when `drop` is set. */
export async function listEntries(directory: string, drop = false): Promise<ListedEntry[]> {
  const names = await readdir(directory).catch(() => [] as string[])
  const listed: ListedEntry[] = []
  for (const name of names) {
    if (!KEY_NAME.test(name)) continue
    const entry = await readEntry(directory, name)
    if (!entry) {
      if (drop) await removeEntry(directory, name)
      continue
    }
    const record = await stat(join(directory, name, ENTRY_FILE)).catch(() => undefined)
    if (!record) continue
    listed.push({key: name, bytes: entry.files.reduce((sum, file) => sum + file.bytes, 0), lastUsed: record.mtime, entry})
  }
  return listed.sort((a, b) => a.lastUsed.getTime() - b.lastUsed.getTime())
}

/** Removes staging directories that killed stores left (older than an hour, or all of them with `all`). */
export async function removeStaleStaging(directory: string, all = false, now = Date.now()): Promise<void> {
  const names = await readdir(directory).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(STAGING_PREFIX)) continue
    const info = await stat(join(directory, name)).catch(() => undefined)
    if (info && (all || now - info.mtimeMs > STAGING_STALE_MS)) await rm(join(directory, name), {recursive: true, force: true})
  }
}

/** Holds the cache to `budgetBytes`, least recently used entries first; returns those removed. */
export async function evictEntries(directory: string, budgetBytes: number): Promise<ListedEntry[]> {
  await removeStaleStaging(directory)
  const entries = await listEntries(directory, true)
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0)
  const removed: ListedEntry[] = []
  for (const entry of entries) {
    if (total <= budgetBytes) break
    await removeEntry(directory, entry.key)
    total -= entry.bytes
    removed.push(entry)
  }
  return removed
}

/** `engine cache clean`: every entry, or those unused for longer than `unusedForMs`; staging leftovers too. */
export async function cleanEntries(directory: string, unusedForMs = 0, now = Date.now()): Promise<ListedEntry[]> {
  await removeStaleStaging(directory, unusedForMs === 0, now)
  const removed: ListedEntry[] = []
  for (const entry of await listEntries(directory, true)) {
    if (now - entry.lastUsed.getTime() < unusedForMs) continue
    await removeEntry(directory, entry.key)
    removed.push(entry)
  }
  return removed
}
