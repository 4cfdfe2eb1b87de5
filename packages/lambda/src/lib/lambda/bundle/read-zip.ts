import {createWriteStream} from 'node:fs'
import {mkdir} from 'node:fs/promises'
import {dirname, resolve, sep} from 'node:path'
import {pipeline} from 'node:stream/promises'
import yauzl from 'yauzl'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

export interface ZipListing {
  name: string
  uncompressedSize: number
  /** Unix permission bits (0 when the zip carries none). */
  mode: number
  directory: boolean
}

const FILE_TYPE_MASK = 0o170000
const REGULAR_FILE = 0o100000
const DIRECTORY = 0o040000

/** The entries of a zip, as its central directory states them. */
export async function listZip(path: string): Promise<ZipListing[]> {
  const listing: ZipListing[] = []
  await eachEntry(path, async (entry) => {
    listing.push(describe(path, entry))
  })
  return listing
}

/** One entry's contents (at most `maxBytes`), or undefined when the zip has no such entry. */
export async function readZipEntry(path: string, name: string, maxBytes = 1024 * 1024): Promise<Buffer | undefined> {
  let found: Buffer | undefined
  await eachEntry(path, async (entry, zip) => {
    if (entry.fileName !== name || found) return
    if (entry.uncompressedSize > maxBytes) throw invalidZip(path, `entry "${name}" is ${entry.uncompressedSize} bytes, more than ${maxBytes}`)
    const chunks: Buffer[] = []
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer)
    found = Buffer.concat(chunks)
  })
  return found
}

/**
 * Unpacks a zip into `directory`. yauzl rejects absolute names and `..`; entries that are neither
 * plain files nor directories (symbolic links) are refused too, so nothing lands outside
 * `directory`. The sizes written are checked against the central directory's.
 */
export async function extractZip(path: string, directory: string): Promise<void> {
  const root = resolve(directory)
  await eachEntry(path, async (entry, zip) => {
    const info = describe(path, entry)
    const target = resolve(root, info.name)
    if (target !== root && !target.startsWith(root + sep)) throw invalidZip(path, `entry "${info.name}" points outside the bundle`)
    if (info.directory) {
      await mkdir(target, {recursive: true})
      return
    }
    await mkdir(dirname(target), {recursive: true})
    await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target, {mode: info.mode || 0o644}))
  })
}

function describe(path: string, entry: yauzl.Entry): ZipListing {
  const attributes = entry.externalFileAttributes >>> 16
  const type = attributes & FILE_TYPE_MASK
  const directory = entry.fileName.endsWith('/') || type === DIRECTORY
  if (type !== 0 && type !== REGULAR_FILE && type !== DIRECTORY) throw invalidZip(path, `entry "${entry.fileName}" is not a file or directory (mode ${type.toString(8)})`)
  return {name: entry.fileName, uncompressedSize: entry.uncompressedSize, mode: attributes & 0o777, directory}
}

async function eachEntry(path: string, visit: (entry: yauzl.Entry, zip: yauzl.ZipFile) => Promise<void>): Promise<void> {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(path, {lazyEntries: true, strictFileNames: true})
  } catch (error) {
    throw invalidZip(path, (error as Error).message)
  }
  try {
    await new Promise<void>((resolvePromise, reject) => {
      zip.on('error', (error: Error) => reject(invalidZip(path, error.message)))
      zip.on('end', () => resolvePromise())
      zip.on('entry', (entry: yauzl.Entry) => {
        visit(entry, zip).then(() => zip.readEntry(), reject)
      })
      zip.readEntry()
    })
  } finally {
    zip.close()
  }
}

function invalidZip(path: string, reason: string): EngineError {
  return new EngineError('INVALID_FLAG', `--bundle: ${path} is not a usable function bundle: ${reason}. Build one with \`engine lambda bundle\``, {bundle: path})
}
