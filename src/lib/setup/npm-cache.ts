import {createHash} from 'node:crypto'
import {createReadStream, createWriteStream} from 'node:fs'
import {join} from 'node:path'
import {Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'

export interface PackageHash {
  algorithm: 'sha512' | 'sha1'
  encoding: 'base64' | 'hex'
  value: string
}

/**
 * Where npm's cache (cacache, under `<cache>/_cacache`) keeps content with this hash: npm stores
 * every tarball it fetched by its integrity, so a machine that installed a package once has its
 * bytes without the registry.
 */
export function npmCacheContentPath(cache: string, hash: PackageHash): string {
  const hex = hash.encoding === 'hex' ? hash.value : Buffer.from(hash.value, 'base64').toString('hex')
  return join(cache, '_cacache', 'content-v2', hash.algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4))
}

/**
 * Copies the tarball with this hash out of npm's cache into `file`, checking the hash on the way:
 * true when the cache had it intact, false when it has no such content or a copy that does not
 * match (then `file` is to be downloaded over).
 */
export async function copyFromNpmCache(cache: string, hash: PackageHash, file: string, maxBytes: number): Promise<boolean> {
  const digest = createHash(hash.algorithm)
  let bytes = 0
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      if (bytes > maxBytes) return callback(new Error('larger than a package of this kind'))
      digest.update(chunk)
      callback(null, chunk)
    },
  })
  try {
    await pipeline(createReadStream(npmCacheContentPath(cache, hash)), meter, createWriteStream(file))
  } catch {
    return false
  }
  return digest.digest(hash.encoding) === hash.value
}
