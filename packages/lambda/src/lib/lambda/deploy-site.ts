import {existsSync} from 'node:fs'
import {join, resolve} from 'node:path'
import type {S3Client} from '@aws-sdk/client-s3'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import type {SiteHandle} from './render-input.js'
import {BucketObjects} from './s3-objects.js'
import {siteFontFiles} from './site-fonts.js'
import {siteIdProblem} from './site-address.js'
import {listSiteFiles, siteIdOf} from './site-files.js'
import {siteKey, siteManifestKey} from './storage-keys.js'

export const DEFAULT_ENTRY = 'index.html'
const UPLOAD_CONCURRENCY = 8

export interface DeploySiteOptions extends AwsClientOptions {
  projectDir: string
  bucketName: string
  /** The composition file inside the project (default index.html). */
  entry?: string
  /** A client to reuse; default one from the options. */
  s3?: S3Client
}

export interface DeployedSite extends SiteHandle {
  /** Files sent now: 0 when a site with this id was already complete in the bucket. */
  uploadedFiles: number
  uploadedBytes: number
  totalFiles: number
}

/** What `sites/<siteId>/site.json` holds; its presence marks a complete upload. */
export interface SiteManifest {
  siteId: string
  entry: string
  files: {path: string; size: number; sha256: string}[]
  createdAt: string
}

/**
 * Uploads a project under its content address `sites/<siteId>/`, with the font packages its
 * composition uses (see siteFontFiles). The manifest goes last, so an
 * interrupted upload is simply redone; when the manifest exists, nothing is uploaded again.
 */
export async function deploySite(options: DeploySiteOptions): Promise<DeployedSite> {
  const projectDir = resolve(options.projectDir)
  const entry = options.entry ?? DEFAULT_ENTRY
  const projectFiles = await listSiteFiles(projectDir)
  if (!existsSync(join(projectDir, entry))) {
    throw new EngineError('COMPOSITION_NOT_FOUND', `projectDir: ${projectDir} has no ${entry}; the composition to render must be ${entry} at the project's top level`, {
      projectDir,
      entry,
    })
  }
  const fontFiles = (await siteFontFiles(projectDir, entry)).filter((font) => !projectFiles.some((file) => file.path === font.path))
  const files = [...projectFiles, ...fontFiles]
  const siteId = siteIdOf(files)
  const bucket = new BucketObjects(options.s3 ?? createS3Client(options), options.bucketName)
  const handle = {siteId, bucketName: options.bucketName, entry, totalFiles: files.length}
  try {
    if (await bucket.exists(siteManifestKey(siteId))) return {...handle, uploadedFiles: 0, uploadedBytes: 0}
    let next = 0
    let uploadedBytes = 0
    const uploader = async () => {
      while (next < files.length) {
        const file = files[next++]
        uploadedBytes += await bucket.uploadFile(siteKey(siteId, file.path), file.absolutePath)
      }
    }
    await Promise.all(Array.from({length: Math.min(UPLOAD_CONCURRENCY, files.length)}, uploader))
    const manifest: SiteManifest = {
      siteId,
      entry,
      files: files.map(({path, size, sha256}) => ({path, size, sha256})),
      createdAt: new Date().toISOString(),
    }
    await bucket.putJson(siteManifestKey(siteId), manifest)
    return {...handle, uploadedFiles: files.length, uploadedBytes}
  } catch (error) {
    throw awsFailure(error, `uploading ${projectDir} to bucket "${options.bucketName}"`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
}

/** `--site-id`: a handle for a site uploaded earlier; nothing is read or uploaded. */
export function siteHandleFromId(siteId: string, bucketName: string, entry: string = DEFAULT_ENTRY): SiteHandle {
  return {siteId: assertSiteId(siteId, '--site-id'), bucketName, entry}
}

/** A Site ID is what `sites create` prints: refused here, before it becomes a prefix to read or delete. */
export function assertSiteId(value: string, field: string): string {
  const problem = siteIdProblem(value)
  if (problem) throw new EngineError('INVALID_FLAG', `${field}: "${value}" ${problem}`, {field, value})
  return value
}
