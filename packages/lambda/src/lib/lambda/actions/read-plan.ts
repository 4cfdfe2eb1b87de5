import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {StoredPlan} from '../render-records.js'
import type {BucketObjects} from '../s3-objects.js'
import {planKey} from '../storage-keys.js'

export async function readPlan(bucket: BucketObjects, renderId: string): Promise<StoredPlan> {
  const stored = await bucket.getJson<StoredPlan>(planKey(renderId))
  if (!stored) {
    throw new EngineError('NOT_FOUND', `render "${renderId}" has no plan in bucket "${bucket.bucketName}" (${planKey(renderId)}): the plan step did not run, or the scratch expired`, {
      renderId,
    })
  }
  return stored
}
