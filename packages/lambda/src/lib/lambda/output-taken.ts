import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {BucketObjects} from './s3-objects.js'

/**
 * Refuses to start a render or still whose output key already holds an object (or, for an image
 * sequence, `sequence`, objects under `<key>/`) unless the caller passed `overwrite`: one render must not
 * silently replace another's output. Checked when the function starts the work, before any frame
 * is drawn; a plan step retried before its own output exists finds nothing.
 */
export async function assertOutputFree(outputs: BucketObjects, outputKey: string, options: {overwrite?: boolean; sequence?: boolean}): Promise<void> {
  if (options.overwrite) return
  const taken = options.sequence ? (await outputs.firstKeys(outputKey.replace(/\/+$/, '') + '/', 1)).length > 0 : await outputs.exists(outputKey)
  if (!taken) return
  throw new EngineError(
    'OUTPUT_EXISTS',
    `outputKey: "${outputKey.slice(0, 200)}" already holds an object in bucket ${outputs.bucketName} (another render's output?); choose another key, or pass --overwrite (config.overwrite: true) to replace it`,
    {field: 'outputKey', key: outputKey, bucketName: outputs.bucketName},
  )
}
