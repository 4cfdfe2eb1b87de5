import type {S3Client} from '@aws-sdk/client-s3'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {assertSiteId} from './deploy-site.js'
import {BucketObjects} from './s3-objects.js'
import {siteKey, siteManifestKey} from './storage-keys.js'

export interface RemoveSiteOptions extends AwsClientOptions {
  siteId: string
  bucketName: string
  s3?: S3Client
}

export interface RemovedSite {
  siteId: string
  bucketName: string
  deletedObjects: number
}

/**
 * Deletes an uploaded site. The manifest goes first: a removal cut short leaves what reads as an
 * interrupted upload, never a site that looks complete with files missing. Renders still running
 * from the site fail when a chunk next fetches it; their outputs and records are not touched.
 */
export async function removeSite(options: RemoveSiteOptions): Promise<RemovedSite> {
  const siteId = assertSiteId(options.siteId, 'siteId')
  const bucket = new BucketObjects(options.s3 ?? createS3Client(options), options.bucketName)
  let keys: string[]
  try {
    keys = await bucket.listKeys(siteKey(siteId, ''))
  } catch (error) {
    throw awsFailure(error, `listing site ${siteId}`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
  if (keys.length === 0) {
    throw new EngineError('NOT_FOUND', `siteId: no site "${siteId}" in bucket "${options.bucketName}"; \`engine lambda sites ls\` lists the sites there`, {
      field: 'siteId',
      value: siteId,
      bucketName: options.bucketName,
    })
  }
  const manifest = siteManifestKey(siteId)
  try {
    if (keys.includes(manifest)) await bucket.deleteKeys([manifest])
    await bucket.deleteKeys(keys.filter((key) => key !== manifest))
  } catch (error) {
    throw awsFailure(error, `deleting site ${siteId}`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
  return {siteId, bucketName: options.bucketName, deletedObjects: keys.length}
}
