import {HeadBucketCommand, HeadObjectCommand} from '@aws-sdk/client-s3'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {OpenOutputStore, OutputStore} from 'html-video-engine/internal/lib/batch/remote-output.js'
import {contentType} from 'html-video-engine/internal/lib/sandbox/content-type.js'
import {createS3Client, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {BucketObjects, isMissing} from './s3-objects.js'
import {reservedKeyProblem} from './reserved-keys.js'
import {STACK_RECORD_KEY} from './stack-record.js'

/**
 * `s3://bucket/key` outputs of a local batch (`engine render --batch -o 's3://…'`), on AWS or any
 * S3-compatible store: the standard AWS settings, or ENGINE_AWS_ENDPOINT for another endpoint
 * (path-style). Provided to the core through the `engine:output-stores` hook.
 */
export function s3OutputStore(options: AwsClientOptions = {}): OutputStore {
  return {
    scheme: 's3',
    async open(bucketName: string): Promise<OpenOutputStore> {
      const s3 = createS3Client(options)
      const bucket = new BucketObjects(s3, bucketName)
      const what = `--output s3://${bucketName}/…`
      let stack: boolean
      try {
        await s3.send(new HeadBucketCommand({Bucket: bucketName}))
        stack = await bucket.exists(STACK_RECORD_KEY)
      } catch (error) {
        if (isMissing(error)) throw new EngineError('OUTPUT_NOT_WRITABLE', `${what}: bucket "${bucketName}" does not exist (or this account cannot see it); create it or name another`, {bucketName})
        throw awsFailure(error, what, {bucketName})
      }
      return {
        // The stack's own objects: in a bucket that holds a stack, no batch output may land on them.
        keyProblem: (key) => (stack ? reservedKeyProblem(key) : undefined),
        async put(path, key) {
          try {
            return {bytes: await bucket.uploadFile(key, path, contentType(key))}
          } catch (error) {
            throw awsFailure(error, `uploading s3://${bucketName}/${key}`, {bucketName})
          }
        },
        async list(prefix) {
          try {
            return await bucket.listKeys(prefix)
          } catch (error) {
            throw awsFailure(error, `listing s3://${bucketName}/${prefix}`, {bucketName})
          }
        },
        async get(key, path) {
          try {
            await bucket.downloadFile(key, path)
          } catch (error) {
            throw awsFailure(error, `downloading s3://${bucketName}/${key}`, {bucketName})
          }
        },
        async size(key) {
          try {
            return (await s3.send(new HeadObjectCommand({Bucket: bucketName, Key: key}))).ContentLength
          } catch (error) {
            if (isMissing(error)) return undefined
            throw awsFailure(error, `--resume: checking s3://${bucketName}/${key}`, {bucketName})
          }
        },
      }
    },
  }
}

