import {readdir, readFile, rm, stat, utimes} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {engineAssetDirectory} from './page-origin.js'

/** The most the download cache may hold, in bytes or with a unit (`4G`, `500M`). */
export const DOWNLOAD_CACHE_MAX_ENV = 'ENGINE_DOWNLOAD_CACHE_MAX'
export const DEFAULT_DOWNLOAD_CACHE_BYTES = 4 * 1024 ** 3
/** An entry used this recently may be in use by a render right now: eviction passes it over. */
export const IN_USE_MS = 2 * 60_000

const META = '.json'

/** What the cache records beside each downloaded file (`<file>.json`). */
export interface CacheMeta {
  url: string
  contentType: string
  /** Fetched from a loopback or private address: reused only where those are allowed. */
  private: boolean
}

export interface CacheEntry extends CacheMeta {
  path: string
  bytes: number
  /** When a render last used it (the record's modification time). */
  lastUsed: Date
}

export function downloadsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(engineAssetDirectory('media', env), 'downloads')
}

/** The cache's budget from ENGINE_DOWNLOAD_CACHE_MAX, else the default (4 GiB). */
export function downloadCacheBudget(env: NodeJS.ProcessEnv = process.env): number {
  return parseSizeBudget(env, DOWNLOAD_CACHE_MAX_ENV, DEFAULT_DOWNLOAD_CACHE_BYTES)
}

/** A cache budget from the environment variable `name`: bytes or a size such as 500M or 4G; `fallback` when unset. */
export function parseSizeBudget(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim()
  if (!text) return fallback
  const match = /^(\d+(?:\.\d+)?)\s*([KMG]i?B?)?$/i.exec(text)
  if (!match) {
    throw new EngineError('INVALID_CONFIG', `${name}: "${text}" is not a size; write bytes or a size such as 500M or 4G`, {value: text})
  }
  const unit = (match[2] ?? '').toUpperCase()[0]
  const scale = unit === 'K' ? 1024 : unit === 'M' ? 1024 ** 2 : unit === 'G' ? 1024 ** 3 : 1
  return Math.floor(Number(match[1]) * scale)
}

export async function readCacheMeta(path: string): Promise<CacheMeta | undefined> {
  try {
    return JSON.parse(await readFile(`${path}${META}`, 'utf8')) as CacheMeta
  } catch {
    return undefined
  }
}

/** Records that a render used the cached file now (the record's time orders eviction). */
export async function markUsed(path: string): Promise<void> {
  const now = new Date()
  await utimes(`${path}${META}`, now, now).catch(() => {})
}

interface StoredFile {
  path: string
  bytes: number
  lastUsed: Date
}

/** The cache's complete entries by size and last use only (no record is read), least recently used first. */
async function storedFiles(env: NodeJS.ProcessEnv): Promise<StoredFile[]> {
  const directory = downloadsDirectory(env)
  const names = await readdir(directory).catch(() => [] as string[])
  const files: StoredFile[] = []
  for (const name of names) {
    if (name.endsWith(META) || name.endsWith('.partial')) continue
    const path = join(directory, name)
    const [file, record] = await Promise.all([stat(path).catch(() => undefined), stat(`${path}${META}`).catch(() => undefined)])
    if (file?.isFile() && record) files.push({path, bytes: file.size, lastUsed: record.mtime})
  }
  return files.sort((a, b) => a.lastUsed.getTime() - b.lastUsed.getTime())
}

/** Every complete entry of the cache with its record, least recently used first. */
export async function listDownloads(env: NodeJS.ProcessEnv = process.env): Promise<CacheEntry[]> {
  const entries: CacheEntry[] = []
  for (const file of await storedFiles(env)) {
    const meta = await readCacheMeta(file.path)
    if (meta) entries.push({...meta, ...file})
  }
  return entries
}

async function remove(entry: StoredFile): Promise<void> {
  // The record first: without it the file is no entry, and a render downloads it again.
  await rm(`${entry.path}${META}`, {force: true})
  await rm(entry.path, {force: true})
}

/**
 * Holds the cache to its budget: the least recently used entries go first, except those used in
 * the last IN_USE_MS (a render may be reading them; the cache is over budget until they age).
 */
export async function evictDownloads(env: NodeJS.ProcessEnv = process.env, now: number = Date.now()): Promise<StoredFile[]> {
  const budget = downloadCacheBudget(env)
  const entries = await storedFiles(env)
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0)
  const removed: StoredFile[] = []
  for (const entry of entries) {
    if (total <= budget) break
    if (now - entry.lastUsed.getTime() < IN_USE_MS) continue
    await remove(entry)
    total -= entry.bytes
    removed.push(entry)
  }
  return removed
}

/** Bytes this process downloaded since it last held the cache to its budget, and when that was. */
const sinceScan = {bytes: 0, at: 0}
/** A scan reads every entry: it runs once a tenth of the budget was added, or a minute passed. */
const SCAN_EVERY_MS = 60_000

/**
 * Called after each download of `bytes`: holds the cache to its budget now and then rather than
 * after every file, so that a render downloading many files into a large cache does not read the
 * whole cache once per file.
 */
export async function afterDownload(bytes: number, env: NodeJS.ProcessEnv = process.env, now: number = Date.now()): Promise<void> {
  sinceScan.bytes += bytes
  if (sinceScan.bytes < downloadCacheBudget(env) / 10 && now - sinceScan.at < SCAN_EVERY_MS) return
  sinceScan.bytes = 0
  sinceScan.at = now
  await evictDownloads(env, now)
}

/** `engine cache clean`: removes every entry, or those unused for longer than `unusedForMs`. */
export async function cleanDownloads(env: NodeJS.ProcessEnv = process.env, unusedForMs = 0, now: number = Date.now()): Promise<CacheEntry[]> {
  const removed: CacheEntry[] = []
  for (const entry of await listDownloads(env)) {
    if (now - entry.lastUsed.getTime() < unusedForMs) continue
    await remove(entry)
    removed.push(entry)
  }
  return removed
}
