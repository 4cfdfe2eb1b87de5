import S3Error from 's3rver/lib/models/error.js'
import type {S3rverStore} from 's3rver'
import {storageKeyProblem} from 'html-video-engine/internal/lib/render/storage-key.js'

/** s3rver's own upload ids: 32 hex digits. */
const UPLOAD_ID = /^[0-9a-f]{32}$/

/**
 * Holds every key s3rver's filesystem store turns into a path to the rule of object keys, in the
 * store itself: the request path is checked before s3rver sees it (refuse-unsafe-keys), but keys
 * also arrive in a POST-object form's `key` field, a DeleteObjects XML body and a multipart upload's
 * `uploadId`, and each of those would otherwise name a file outside the stack's directory.
 */
export function confineStoreKeys(store: S3rverStore): void {
  const resourcePath = store.getResourcePath.bind(store)
  store.getResourcePath = (bucket, key, resource) => {
    // Bucket-level resources (uploads, CORS) pass no key.
    if (key !== undefined && (key !== '' || resource === 'object' || resource === 'metadata.json')) {
      const problem = storageKeyProblem(String(key))
      if (problem) throw new S3Error('InvalidArgument', `the local stack refuses key ${JSON.stringify(String(key)).slice(0, 200)}: it ${problem}; keys must be relative paths of names separated by "/"`)
    }
    return resourcePath(bucket, key, resource)
  }
  const putPart = store.putPart.bind(store)
  store.putPart = (bucket, uploadId, ...rest) => putPart(bucket, checkedUploadId(uploadId), ...rest)
  const putObjectMultipart = store.putObjectMultipart.bind(store)
  store.putObjectMultipart = (bucket, uploadId, ...rest) => putObjectMultipart(bucket, checkedUploadId(uploadId), ...rest)
}

function checkedUploadId(uploadId: string): string {
  if (UPLOAD_ID.test(String(uploadId))) return uploadId
  throw new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.')
}
