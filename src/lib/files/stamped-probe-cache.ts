import {randomBytes} from 'node:crypto'
import {readFile, rename, rm, stat, writeFile} from 'node:fs/promises'
import {basename, dirname, resolve} from 'node:path'
import {z} from 'zod'
import {makeDirectory} from './make-directory.js'

const cacheFileSchema = z.record(z.string(), z.object({stamp: z.string(), facts: z.unknown()}))
type CacheFile = z.infer<typeof cacheFileSchema>

export interface StampedProbe<T> {
  /** The JSON file that holds the facts of every executable probed this way. */
  file: string
  executablePath: string
  /** Validates the facts read back: an entry another version of engine wrote may differ. */
  schema: z.ZodType<T>
  /** Runs the executable to learn the facts. A failure is thrown and never cached. */
  probe: () => Promise<T>
}

/**
 * Facts learnt by running an executable (a browser's version, an ffmpeg's filters), kept on disk
 * so that a new process does not start the executable again to learn them. An entry holds only
 * while the file at that path is the same file: an upgrade gets probed afresh. A cache file that
 * is missing, unreadable or corrupt counts as empty; one that cannot be written costs a probe
 * next time, never the caller's work.
 */
export async function stampedProbe<T>({file, executablePath, schema, probe}: StampedProbe<T>): Promise<T> {
  // A bare command name is looked up on PATH by whoever runs it: there is no one file to stamp.
  if (basename(executablePath) === executablePath) return probe()
  const key = resolve(executablePath)
  const stamp = await stampOf(key)
  if (!stamp) return probe()
  const cache = await readCacheFile(file)
  const entry = cache[key]
  if (entry?.stamp === stamp) {
    const facts = schema.safeParse(entry.facts)
    if (facts.success) return facts.data
  }
  const facts = await probe()
  cache[key] = {stamp, facts}
  await writeCacheFile(file, cache)
  return facts
}

/** A script that starts a script that starts the binary is as deep as launchers go in practice. */
const MAX_LAUNCHER_DEPTH = 2
const MAX_LAUNCHER_BYTES = 16 * 1024
const ABSOLUTE_PATH = /(?<![\w.$-])\/[\w.+@/-]+/g

/**
 * Size and modification time change with an upgrade; the change time and inode also catch a
 * binary replaced by one of the same size with its old mtime restored (cp -p, some packagers).
 * A launcher script (Debian's `/usr/bin/chromium-headless-shell` is three lines) stays the same
 * file across an upgrade of what it starts, so the executables it names by absolute path count
 * too; what else it names (a log it appends to, `/dev/null`) does not.
 */
async function stampOf(executablePath: string, depth = 0): Promise<string | undefined> {
  const info = await stat(executablePath).catch(() => undefined)
  if (!info) return undefined
  if (depth > 0 && (!info.isFile() || (info.mode & 0o111) === 0)) return undefined
  const own = `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.dev}:${info.ino}`
  if (depth >= MAX_LAUNCHER_DEPTH || !info.isFile() || info.size > MAX_LAUNCHER_BYTES) return own
  const text = await readFile(executablePath, 'latin1').catch(() => '')
  if (!text.startsWith('#!')) return own
  const named = [...new Set(text.slice(text.indexOf('\n') + 1).match(ABSOLUTE_PATH) ?? [])].filter((path) => path !== executablePath)
  const stamps = await Promise.all(
    named.map(async (path) => {
      const stamp = await stampOf(path, depth + 1)
      return stamp && `${path}=${stamp}`
    }),
  )
  return [own, ...stamps.filter((stamp) => stamp !== undefined)].join('|')
}

async function readCacheFile(file: string): Promise<CacheFile> {
  try {
    const parsed = cacheFileSchema.safeParse(JSON.parse(await readFile(file, 'utf8')))
    return parsed.success ? parsed.data : {}
  } catch {
    return {}
  }
}

/**
 * Written whole to a temporary file and renamed over the cache file, so that a reader never sees
 * half a file; of two processes writing at once the last one wins, which only costs the other's
 * entry a probe next time.
 */
async function writeCacheFile(file: string, cache: CacheFile): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  try {
    await makeDirectory(dirname(file))
    await writeFile(temporary, JSON.stringify(cache, null, 2))
    await rename(temporary, file)
  } catch {
    // A read-only or full cache directory: best effort, see above.
    await rm(temporary, {force: true}).catch(() => undefined)
  }
}
