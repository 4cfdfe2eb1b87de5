import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {stat} from 'node:fs/promises'
import {pipeline} from 'node:stream/promises'

/** Hex sha256 of a file's bytes, read as a stream; undefined for anything that is not a regular file (a png-sequence folder). */
export async function fileSha256(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) return undefined
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
