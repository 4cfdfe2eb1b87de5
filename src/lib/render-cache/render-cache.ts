import {createHash, randomUUID} from 'node:crypto'
import {createReadStream, createWriteStream} from 'node:fs'
import {mkdir, readFile, rename, rm, stat, utimes, writeFile} from 'node:fs/promises'
import {basename, dirname, extname, join} from 'node:path'
import {Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {partialPath} from '../encode/partial-path.js'
import {CACHE_ENTRY_VERSION, ENTRY_FILE, type CacheEntry, type CacheInput, type StoredRole} from './cache-entry.js'
import {evictEntries, readEntry, removeEntry, STAGING_PREFIX} from './cache-entries.js'
import {changedInput} from './input-files.js'
import {renderCacheSettings, type RenderCacheSettings} from './render-cache-settings.js'
import {faultPoint} from '../trace/fault-point.js'

/** A file of a render: its output or its poster, where the render put it (or a hit is to put it). */
export interface CacheTarget {
  role: StoredRole
  path: string
}

/**
 * Why a lookup did not reuse an entry: none stored, a project file it read changed, it was damaged
 * (dropped), it could not be read or copied, or the caller's `accept` refused it.
 */
export type CacheMiss = {hit: false; reason: 'absent' | 'input-changed' | 'corrupt' | 'unreadable' | 'refused'; detail?: string}
export type CacheLookup = {hit: true; entry: CacheEntry} | CacheMiss

export interface StoreInput {
  kind: CacheEntry['kind']
  composition: string
  files: readonly CacheTarget[]
  inputs: CacheInput[]
  result: CacheEntry['result']
  textFindings?: CacheEntry['textFindings']
}

/**
 * Looks at an entry before a hit copies anything: false makes the lookup a miss (`refused`); what
 * it throws ends the claim and reaches the caller (a row the check stops is never copied).
 */
export type AcceptEntry = (entry: CacheEntry) => boolean | Promise<boolean>

/**
 * A claim on one key for the time of a lookup and, after a miss, the render and its store: another
 * render of the same key in this process waits for it, then copies what it stored.
 */
export interface CacheClaim {
  lookup: CacheLookup
  /** Stores the render's files under the key (after a miss); a failure to store is returned, never thrown. */
  store(input: StoreInput): Promise<Error | undefined>
  /** The output's sha256 as the cache hashed it (the hit's copy, or this claim's store): one read of the file saved. */
  outputSha256(): string | undefined
  release(): void
}

/** Scans for eviction once this share of the budget was stored since the last one, or a minute passed. */
const SCAN_SHARE = 10
const SCAN_EVERY_MS = 60_000

/**
 * The content-addressed store of finished outputs (see docs/guides/rendering/render-cache.md).
 * Each entry is a directory named by its key holding the stored files and `entry.json` (their
 * sizes and sha256, the project files the render read). A store writes a staging directory and
 * renames it into place, so a kill at any moment leaves either no entry or a whole one; a hit
 * copies each file beside its target while hashing it and renames it into place only when size
 * and sha256 match, otherwise the entry is dropped and the render runs.
 */
export class RenderCache {
  private readonly claims = new Map<string, Promise<void>>()
  private sinceScan = {bytes: 0, at: Date.now()}

  constructor(readonly settings: RenderCacheSettings) {}

  get directory(): string {
    return this.settings.directory
  }

  /** Waits while another render of this process holds `key`, then looks it up and restores a hit into `targets`. */
  async claim(key: string, targets: readonly CacheTarget[], projectDir: string, accept?: AcceptEntry): Promise<CacheClaim> {
    for (let held = this.claims.get(key); held; held = this.claims.get(key)) await held
    let release!: () => void
    this.claims.set(key, new Promise<void>((resolve) => (release = resolve)))
    const releaseOnce = () => {
      if (this.claims.get(key) === undefined) return
      this.claims.delete(key)
      release()
    }
    let refusal: {error: unknown} | undefined
    const accepting: AcceptEntry | undefined =
      accept &&
      (async (entry) => {
        try {
          return await accept(entry)
        } catch (error) {
          refusal = {error}
          throw error
        }
      })
    // A cache that cannot be read or copied from (permissions, a full disk) costs a render, never the output.
    const lookup = await this.restore(key, targets, projectDir, accepting).catch((error: Error): CacheMiss => ({hit: false, reason: 'unreadable', detail: error.message}))
    if (refusal) {
      releaseOnce()
      throw refusal.error
    }
    let entry = lookup.hit ? lookup.entry : undefined
    const store = async (input: StoreInput) => {
      const stored = await this.store(key, input)
      if (stored instanceof Error) return stored
      entry = stored
      return undefined
    }
    const outputSha256 = () => entry?.files.find((file) => file.role === 'output')?.sha256
    return {lookup, store, outputSha256, release: releaseOnce}
  }

  private async restore(key: string, targets: readonly CacheTarget[], projectDir: string, accept?: AcceptEntry): Promise<CacheLookup> {
    const entry = await readEntry(this.directory, key)
    if (!entry) {
      const present = await stat(join(this.directory, key)).catch(() => undefined)
      if (present) await removeEntry(this.directory, key)
      return present ? {hit: false, reason: 'corrupt', detail: 'its record is missing, unreadable or untrusted'} : {hit: false, reason: 'absent'}
    }
    const changed = await changedInput(entry.inputs, projectDir)
    if (changed !== undefined) return {hit: false, reason: 'input-changed', detail: changed}
    if (entry.files.length !== targets.length || targets.some((target) => !entry.files.some((file) => file.role === target.role))) {
      return {hit: false, reason: 'absent'}
    }
    if (accept && !(await accept(entry))) return {hit: false, reason: 'refused'}
    const copies: Array<{partial: string; target: string}> = []
    try {
      for (const file of entry.files) {
        const target = targets.find((candidate) => candidate.role === file.role)!.path
        const partial = partialPath(target, extname(target))
        copies.push({partial, target})
        const {bytes, sha256} = await copyHashing(join(this.directory, key, file.name), partial)
        if (bytes !== file.bytes || sha256 !== file.sha256) {
          await removeEntry(this.directory, key)
          await Promise.all(copies.map((copy) => rm(copy.partial, {force: true})))
          return {hit: false, reason: 'corrupt', detail: `${file.name} has ${bytes} bytes with sha256 ${sha256}, not ${file.bytes} bytes with ${file.sha256}`}
        }
      }
    } catch (error) {
      await Promise.all(copies.map((copy) => rm(copy.partial, {force: true})))
      throw error
    }
    for (const copy of copies) await rename(copy.partial, copy.target)
    const now = new Date()
    await utimes(join(this.directory, key, ENTRY_FILE), now, now).catch(() => {})
    return {hit: true, entry}
  }

  private async store(key: string, input: StoreInput): Promise<Error | CacheEntry> {
    const staging = join(this.directory, `${STAGING_PREFIX}${randomUUID()}`)
    try {
      await mkdir(staging, {recursive: true})
      const files: CacheEntry['files'] = []
      for (const file of input.files) {
        const name = `${file.role}${storedExtension(file.path)}`
        const {bytes, sha256} = await copyHashing(file.path, join(staging, name))
        files.push({role: file.role, name, bytes, sha256})
      }
      const entry: CacheEntry = {
        version: CACHE_ENTRY_VERSION,
        key,
        kind: input.kind,
        createdAt: new Date().toISOString(),
        composition: basename(input.composition),
        files,
        inputs: input.inputs,
        result: input.result,
        ...(input.textFindings && {textFindings: input.textFindings}),
      }
      // The record is written last: a staging directory without it is never an entry, even if renamed.
      await writeFile(join(staging, ENTRY_FILE), JSON.stringify(entry))
      await faultPoint('cache-store')
      await removeEntry(this.directory, key)
      await rename(staging, join(this.directory, key))
      await this.afterStore(files.reduce((sum, file) => sum + file.bytes, 0))
      return entry
    } catch (error) {
      await rm(staging, {recursive: true, force: true}).catch(() => {})
      return error as Error
    }
  }

  private async afterStore(bytes: number): Promise<void> {
    this.sinceScan.bytes += bytes
    const now = Date.now()
    if (this.sinceScan.bytes < this.settings.budgetBytes / SCAN_SHARE && now - this.sinceScan.at < SCAN_EVERY_MS) return
    this.sinceScan = {bytes: 0, at: now}
    await evictEntries(this.directory, this.settings.budgetBytes)
  }
}

/** `.mp4` of `clip.mp4`, when it is a plain extension; entries keep it so that `engine cache ls` readers can open a file. */
function storedExtension(path: string): string {
  const extension = extname(path).toLowerCase()
  return /^\.[a-z0-9]{1,12}$/.test(extension) ? extension : ''
}

/** Files up to this size are copied in one read and one write; larger ones are streamed. */
const WHOLE_COPY_BYTES = 32 * 1024 ** 2

/** Copies `from` to `to`, hashing the bytes on the way; the copy is what was hashed. */
async function copyHashing(from: string, to: string): Promise<{bytes: number; sha256: string}> {
  const hash = createHash('sha256')
  let bytes = 0
  await mkdir(dirname(to), {recursive: true})
  if ((await stat(from)).size <= WHOLE_COPY_BYTES) {
    const data = await readFile(from)
    await writeFile(to, data, {flag: 'wx'})
    return {bytes: data.length, sha256: hash.update(data).digest('hex')}
  }
  await pipeline(
    createReadStream(from),
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk)
        bytes += chunk.length
        done(null, chunk)
      },
    }),
    createWriteStream(to, {flags: 'wx'}),
  )
  return {bytes, sha256: hash.digest('hex')}
}

const caches = new Map<string, RenderCache>()

/** The render cache of this environment (one object per directory, so that renders of one process share claims), or undefined when it is off. */
export function renderCacheFor(env: NodeJS.ProcessEnv = process.env): RenderCache | undefined {
  const settings = renderCacheSettings(env)
  if (!settings) return undefined
  let cache = caches.get(settings.directory)
  if (!cache) caches.set(settings.directory, (cache = new RenderCache(settings)))
  return cache
}
