import {randomBytes} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdir, realpath, rename, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, sep} from 'node:path'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {SiteManifest} from './deploy-site.js'
import {mapLimited} from './map-limited.js'
import type {BucketObjects} from './s3-objects.js'
import {siteEntryProblem} from './site-address.js'
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
    await mapLimited(manifest.files, DOWNLOAD_CONCURRENCY, (file) => bucket.downloadFile(siteKey(siteId, file.path), join(partial, ...file.path.split('/'))))
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

/**
 * The composition file `entry` names in a fetched site. A name that is not a file of the site gets
 * one answer, whether it is missing, a directory, or a path that would lead outside the site, so
 * that the function tells a caller nothing about files beyond the site.
 */
export async function siteEntryPath(siteDir: string, siteId: string, entry: string): Promise<string> {
  const notFound = () =>
    new EngineError('NOT_FOUND', `entry: "${entry.slice(0, 200)}" is not a file of site ${siteId}; name the composition by its path inside the site`, {
      siteId,
      entry,
    })
  if (siteEntryProblem(entry)) throw notFound()
  const path = join(siteDir, ...entry.split('/'))
  const real = await realpath(path).catch(() => undefined)
  const root = await realpath(siteDir)
  if (!real || !real.startsWith(root + sep) || !(await stat(real)).isFile()) throw notFound()
  return path
}
