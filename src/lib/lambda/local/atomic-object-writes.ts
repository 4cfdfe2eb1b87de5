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
 * it over the object. One gap remains: s3rver's GET takes the size from a stat before it opens the
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
    try {
      await pipeline(content, measure, createWriteStream(incoming))
      await rename(incoming, objectPath)
    } catch (error) {
      await rm(incoming, {force: true})
      throw error
    }
    const digest = md5.digest('hex')
    await store.putMetadata(object.bucket, object.key, object.metadata, digest)
    return {size, md5: digest}
  }
}
