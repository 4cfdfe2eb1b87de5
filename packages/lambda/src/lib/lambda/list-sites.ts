import type {S3Client} from '@aws-sdk/client-s3'
import {z} from 'zod'
import {createS3Client, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {mapLimited} from './map-limited.js'
import {BucketObjects} from './s3-objects.js'
import {SITES_PREFIX, siteManifestKey} from './storage-keys.js'

export interface ListSitesOptions extends AwsClientOptions {
  bucketName: string
  s3?: S3Client
}

/** One uploaded project, as `sites ls` shows it. */
export interface SiteSummary {
  siteId: string
  /**
   * False for an upload that never wrote its manifest (interrupted): renders cannot use it, and
   * `sites create` of the same files completes it.
   */
  complete: boolean
  entry?: string
  files?: number
  bytes?: number
  createdAt?: string
}

/** The fields of `site.json` a listing shows; a manifest without them reads as an incomplete site. */
const manifestSchema = z.object({
  entry: z.string(),
  files: z.array(z.object({size: z.number()})),
  createdAt: z.string(),
})

/** At most this many manifests are fetched at once. */
const READ_CONCURRENCY = 8

/** Every site in the bucket, newest first (incomplete uploads last), from the sites' manifests. */
export async function listSites(options: ListSitesOptions): Promise<SiteSummary[]> {
  const bucket = new BucketObjects(options.s3 ?? createS3Client(options), options.bucketName)
  try {
    const siteIds = (await bucket.listPrefixes(SITES_PREFIX)).map((prefix) => prefix.slice(SITES_PREFIX.length, -1))
    const sites = await mapLimited(siteIds, READ_CONCURRENCY, async (siteId) => summarize(siteId, await bucket.getJson<unknown>(siteManifestKey(siteId))))
    return sites.sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || a.siteId.localeCompare(b.siteId))
  } catch (error) {
    throw awsFailure(error, `listing the sites of bucket "${options.bucketName}"`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
}

function summarize(siteId: string, manifest: unknown): SiteSummary {
  const parsed = manifestSchema.safeParse(manifest)
  if (!parsed.success) return {siteId, complete: false}
  const {entry, files, createdAt} = parsed.data
  return {siteId, complete: true, entry, files: files.length, bytes: files.reduce((sum, file) => sum + file.size, 0), createdAt}
}
