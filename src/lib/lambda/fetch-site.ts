import {randomBytes} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdir, rename, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import type {SiteManifest} from './deploy-site.js'
import type {BucketObjects} from './s3-objects.js'
import {siteKey, siteManifestKey} from './storage-keys.js'

const COMPLETE_MARKER = '.engine-site-complete'
const DOWNLOAD_CONCURRENCY = 8

/**
 * Puts a site on local disk (Lambda: /tmp) and returns its directory. A warm function reuses the
 * copy; concurrent fetches of one site each download into their own directory and the first to
 * finish is renamed into place, so a reader never sees a half-written site.
 */
export async function fetchSite(bucket: BucketObjects, siteId: string, root: string = join(tmpdir(), 'engine-sites')): Promise<string> {
  const dir = join(root, siteId)
  if (existsSync(join(dir, COMPLETE_MARKER))) return dir
  const manifest = await bucket.getJson<SiteManifest>(siteManifestKey(siteId))
  if (!manifest) {
    throw new EngineError('NOT_FOUND', `site "${siteId}" is not in bucket "${bucket.bucketName}" (no ${siteManifestKey(siteId)}); upload it with \`engine lambda sites create\``, {
      siteId,
    })
  }
  const partial = `${dir}.partial-${randomBytes(4).toString('hex')}`
  await mkdir(partial, {recursive: true})
  try {
    let next = 0
    const worker = async () => {
      while (next < manifest.files.length) {
        const file = manifest.files[next++]
        await bucket.downloadFile(siteKey(siteId, file.path), join(partial, ...file.path.split('/')))
      }
    }
    await Promise.all(Array.from({length: DOWNLOAD_CONCURRENCY}, worker))
    await writeFile(join(partial, COMPLETE_MARKER), siteId)
    // Left behind by an invocation that died mid-rename; complete copies always carry the marker.
    if (existsSync(dir) && !existsSync(join(dir, COMPLETE_MARKER))) await rm(dir, {recursive: true, force: true})
    await rename(partial, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another invocation finished first; its copy is identical (same content address).
      if (!existsSync(join(dir, COMPLETE_MARKER))) throw error
    })
  } finally {
    await rm(partial, {recursive: true, force: true})
  }
  return dir
}
