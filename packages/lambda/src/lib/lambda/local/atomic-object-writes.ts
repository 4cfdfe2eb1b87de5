import {randomBytes, createHash} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {mkdir, rename, rm} from 'node:fs/promises'
import {dirname} from 'node:path'
import {Readable, Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import type {S3rverObject, S3rverStore} from 's3rver'

/**
 * S3 replaces an object at once: a GET sees the old object or the new one. s3rver's filesystem
 * store writes the file in place, so a GET during a PUT can read an empty or half-written object
 * (seen as "Unexpected end of JSON input" when progress read render.json while the plan step wrote
 * it). Here each PUT writes a temporary file beside the object (a name listings ignore) and renames
 * it over the object, once its metadata is written. One gap remains: s3rver's GET takes the size from a stat before it opens the
 * file, so a rewrite that changes the size, landing in that instant, is read short.
 */
export function makeObjectWritesAtomic(store: S3rverStore): void {
  store.putObject = async (object: S3rverObject) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object')
    const incoming = `${objectPath}.incoming-${randomBytes(6).toString('hex')}`
    await mkdir(dirname(objectPath), {recursive: true})
    const md5 = createHash('md5')
    let size = 0
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk)
        size += chunk.length
        callback(null, chunk)
      },
    })
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content
    let digest = ''
    try {
      await pipeline(content, measure, createWriteStream(incoming))
      digest = md5.digest('hex')
      // Listings find objects by their file: the metadata is there before the file is, so a key
      // listed while it is written never answers a GET with an internal error.
      await store.putMetadata(object.bucket, object.key, object.metadata, digest)
      await rename(incoming, objectPath)
    } catch (error) {
      await rm(incoming, {force: true})
      throw error
    }
    return {size, md5: digest}
  }
}

/** Listings retried when a file vanished under them: plenty for a rename of microseconds. */
const LISTING_ATTEMPTS = 5

/**
 * s3rver lists a bucket by reading each directory and then stat-ing every entry; a temporary file
 * of a write renamed in between makes that stat fail and the listing answer 500, which S3 never
 * does for a concurrent write. Such a listing is simply made again.
 */
export function makeListingsTolerateWrites(store: S3rverStore): void {
  const list = store.listObjects.bind(store)
  store.listObjects = async (bucket, options) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await list(bucket, options)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= LISTING_ATTEMPTS) throw error
      }
    }
  }
}
