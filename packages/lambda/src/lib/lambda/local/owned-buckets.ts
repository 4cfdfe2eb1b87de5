import type {IncomingMessage} from 'node:http'
import type {S3rverStore} from 's3rver'
import type {Refusal} from './request-guard.js'

/**
 * Every bucket of the local stack is its caller's: creating one that exists is answered
 * BucketAlreadyOwnedByYou, as S3 answers a bucket's owner, where s3rver answers
 * BucketAlreadyExists (S3's answer when another account owns the name), which would stop
 * `lambda deploy` run a second time on the stack's own bucket.
 */
export async function ownedBucketRefusal(request: IncomingMessage, store: S3rverStore): Promise<Refusal | undefined> {
  if (request.method !== 'PUT') return undefined
  const url = new URL(request.url ?? '/', 'http://local')
  const bucket = url.search === '' ? /^\/([^/]+)\/?$/.exec(url.pathname)?.[1] : undefined
  if (!bucket || !(await store.getBucket(decodeURIComponent(bucket)))) return undefined
  return {status: 409, code: 'BucketAlreadyOwnedByYou', message: 'Your previous request to create the named bucket succeeded and you already own it.'}
}
