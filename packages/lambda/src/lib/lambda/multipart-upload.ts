import {createReadStream} from 'node:fs'
import {stat} from 'node:fs/promises'
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3'
import {mapLimited} from './map-limited.js'

/** Files from this size on go up in parts: one PutObject stops at 5 GB, and a part can be retried alone. */
export const MULTIPART_THRESHOLD_BYTES = 64 * 1024 * 1024
const DEFAULT_PART_BYTES = 16 * 1024 * 1024
/** S3's limits: parts of at least 5 MiB (but the last), at most 10,000 of them. */
const MIN_PART_BYTES = 5 * 1024 * 1024
const MAX_PARTS = 10_000
/** Parts in flight at once: each holds a file stream and a connection, not the part in memory. */
const PART_CONCURRENCY = 4

/** What an object is written with besides its type: a download name, tags (`key=value&...`). */
export interface ObjectHeaders {
  ContentDisposition?: string
  Tagging?: string
}

export interface UploadInPartsOptions {
  bucketName: string
  key: string
  path: string
  contentType?: string
  headers?: ObjectHeaders
  /** Size of each part but the last (default 16 MiB, raised when the file would need more than 10,000). */
  partBytes?: number
}

/**
 * Uploads a file as an S3 multipart upload (CreateMultipartUpload, UploadPart, Complete) without
 * @aws-sdk/lib-storage, which the engine does not depend on. A failed upload is aborted, so that
 * its parts are not kept (and billed) until a lifecycle rule would remove them.
 */
export async function uploadInParts(s3: S3Client, options: UploadInPartsOptions): Promise<number> {
  const {size} = await stat(options.path)
  const partBytes = Math.max(options.partBytes ?? DEFAULT_PART_BYTES, MIN_PART_BYTES, Math.ceil(size / MAX_PARTS))
  const target = {Bucket: options.bucketName, Key: options.key}
  const {UploadId} = await s3.send(new CreateMultipartUploadCommand({...target, ContentType: options.contentType, ...options.headers}))
  try {
    const ranges = Array.from({length: Math.max(1, Math.ceil(size / partBytes))}, (_, index) => ({
      PartNumber: index + 1,
      start: index * partBytes,
      end: Math.min(size, (index + 1) * partBytes),
    }))
    const parts = await mapLimited(ranges, PART_CONCURRENCY, async ({PartNumber, start, end}): Promise<CompletedPart> => {
      const body = end > start ? createReadStream(options.path, {start, end: end - 1}) : Buffer.alloc(0)
      const {ETag} = await s3.send(new UploadPartCommand({...target, UploadId, PartNumber, Body: body, ContentLength: end - start}))
      return {PartNumber, ETag}
    })
    await s3.send(new CompleteMultipartUploadCommand({...target, UploadId, MultipartUpload: {Parts: parts}}))
    return size
  } catch (error) {
    await s3.send(new AbortMultipartUploadCommand({...target, UploadId})).catch(() => {})
    throw error
  }
}
