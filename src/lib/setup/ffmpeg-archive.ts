import {createHash} from 'node:crypto'
import {createReadStream, createWriteStream} from 'node:fs'
import {Readable, Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import type {ReadableStream as WebReadableStream} from 'node:stream/web'
import {Parser, type ReadEntry} from 'tar'
import xz from 'xz-decompress'

/** ffmpeg and ffprobe of a static build are about 80 MB each: an entry claiming over 400 MB is not the build. */
const MAX_PROGRAM_BYTES = 400 * 1024 * 1024

export interface ArchiveProgram {
  /** Its path inside the archive. */
  inside: string
  /** Where to write it. */
  file: string
}

/**
 * Reads a tar.xz (already checked against its pinned hash) and writes out only the programs asked
 * for, each as a plain file. The archive is refused whole when any entry names an absolute path or
 * climbs out with `..`, when a wanted name is a link, a folder or anything but a regular file, or
 * when a wanted program is missing: a hash can be pinned to a hostile archive by mistake, and
 * nothing of such an archive may land where engine runs programs from. xz is decoded in
 * WebAssembly (xz-decompress): Node has no xz decoder and no system tool is needed.
 * Returns the sha256 of each program written.
 */
export async function extractPrograms(archive: string, programs: readonly ArchiveProgram[], refuse: (reason: string, cause?: unknown) => never): Promise<Map<string, string>> {
  const names = new Set(programs.map((program) => program.inside))
  const wanted = new Map(programs.map((program) => [program.inside, program.file]))
  const written = new Map<string, string>()
  // Each write is settled as it is started: a write cut short by a broken archive must not surface
  // later as an unhandled rejection.
  const writes: Promise<void>[] = []
  let writeError: Error | undefined
  let problem: string | undefined
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const reason = problem ? undefined : hostileEntry(entry, names)
      if (reason) problem = reason
      const file = wanted.get(entry.path.replace(/^\.\//, ''))
      if (problem || !file || entry.type !== 'File') {
        entry.resume()
        return
      }
      wanted.delete(entry.path.replace(/^\.\//, ''))
      writes.push(
        writeEntry(entry, file).then(
          (sha256) => void written.set(file, sha256),
          (error: Error) => void (writeError ??= error),
        ),
      )
    },
  })
  const decoded = Readable.fromWeb(new xz.XzReadableStream(Readable.toWeb(createReadStream(archive)) as unknown as ReadableStream<Uint8Array>) as unknown as WebReadableStream<Uint8Array>)
  try {
    await pipeline(decoded, parser)
  } catch (error) {
    // Writes cut short are not awaited: an entry of a broken stream may never end.
    if (problem) refuse(problem)
    return refuse(`the archive cannot be read (${(error as Error).message}): it is truncated or not a tar.xz`, error)
  }
  await Promise.all(writes)
  if (problem) refuse(problem)
  if (writeError) refuse(`a program could not be written out of it (${writeError.message})`, writeError)
  if (wanted.size > 0) refuse(`the archive has no ${[...wanted.keys()].join(', ')}`)
  return written
}

/** Why an entry makes the whole archive untrustworthy, if it does. */
function hostileEntry(entry: ReadEntry, names: ReadonlySet<string>): string | undefined {
  const path = entry.path
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path) || path.split(/[\\/]/).includes('..')) return `the archive holds an entry outside its folder (${JSON.stringify(path)})`
  const linkTarget = entry.linkpath ? String(entry.linkpath) : ''
  if (linkTarget && (linkTarget.startsWith('/') || linkTarget.split(/[\\/]/).includes('..'))) return `the archive holds a link that points outside it (${JSON.stringify(path)} -> ${JSON.stringify(linkTarget)})`
  const name = path.replace(/^\.\//, '')
  if (names.has(name) && entry.type !== 'File') return `${name} in the archive is a ${entry.type}, not a plain file`
  if (names.has(name) && (entry.size ?? 0) > MAX_PROGRAM_BYTES) return `${name} in the archive claims ${entry.size} bytes, more than a program of this build can be`
  return undefined
}

async function writeEntry(entry: ReadEntry, file: string): Promise<string> {
  const hash = createHash('sha256')
  const tee = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk)
      callback(null, chunk)
    },
  })
  await pipeline(entry, tee, createWriteStream(file, {mode: 0o755}))
  return hash.digest('hex')
}
