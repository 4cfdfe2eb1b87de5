import type {S3Client} from '@aws-sdk/client-s3'
import {DescribeExecutionCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, createSfnClient, STATE_MACHINE_ENV, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {executionArnFor} from './render-progress.js'
import type {RenderRecord, RenderResultRecord} from './render-records.js'
import {BucketObjects} from './s3-objects.js'
import {renderCancelKey, renderFailureKey, renderRecordKey, renderResultKey, RENDERS_PREFIX, scratchPrefix} from './storage-keys.js'

/** What newRenderId makes: its start time in base 36, a dash, 10 hex digits. */
const RENDER_ID = /^[0-9a-z]{1,12}-[0-9a-f]{10}$/

export interface RemoveRenderOptions extends AwsClientOptions {
  renderId: string
  bucketName: string
  /** Tells whether a render without an end record is still running (default ENGINE_SFN_ARN). */
  stateMachineArn?: string
  /** Keep the output (and poster): remove only the render's records and scratch. */
  keepOutput?: boolean
  s3?: S3Client
  sfn?: SFNClient
}

export interface RemovedRender {
  renderId: string
  bucketName: string
  /** The output removed (absent when kept, or when the render produced none). */
  outputKey?: string
  /** Its bucket, when not the render's (`outputBucket`). */
  outputBucket?: string
  objectsDeleted: number
}

/**
 * Deletes a render that has ended: its output (one object, or every frame of a frame-file
 * output) and poster, its scratch, and its records under renders/<renderId>/, the records last so
 * that a removal cut short can be run again. A running render is refused (cancel it first).
 */
export async function removeRender(options: RemoveRenderOptions): Promise<RemovedRender> {
  const {renderId, bucketName} = options
  if (!RENDER_ID.test(renderId)) {
    throw new EngineError('INVALID_FLAG', `renderId: "${renderId}" is not a render id (like mwxileqx-3b73d95040); \`engine lambda renders ls\` lists them`, {field: 'renderId', value: renderId})
  }
  const s3 = options.s3 ?? createS3Client(options)
  const bucket = new BucketObjects(s3, bucketName)
  try {
    const records = await bucket.listKeys(`${RENDERS_PREFIX}${renderId}/`)
    const ended = [renderResultKey, renderFailureKey, renderCancelKey].some((key) => records.includes(key(renderId)))
    // Before its plan step a running render has no records yet: its execution says it runs.
    if (!ended) await assertNotRunning(options, records.length > 0)
    if (records.length === 0) {
      throw new EngineError('NOT_FOUND', `render ${renderId} has no records in bucket "${bucketName}" (already removed, or another bucket); \`engine lambda renders ls\` lists them`, {
        field: 'renderId',
        value: renderId,
      })
    }

    const doomed: string[] = []
    let outputKey: string | undefined
    let outputBucket: string | undefined
    let removedElsewhere = 0
    if (!options.keepOutput) {
      const result = await bucket.getJson<RenderResultRecord>(renderResultKey(renderId))
      const planned = await bucket.getJson<RenderRecord>(renderRecordKey(renderId))
      outputKey = result?.outputKey ?? planned?.outputKey
      // An output written to another bucket (`outputBucket`) is removed there, before the records.
      outputBucket = result?.outputBucket
      const outputs = outputBucket ? new BucketObjects(s3, outputBucket) : bucket
      const outputKeys: string[] = []
      if (result?.outputKind === 'prefix') outputKeys.push(...(await outputs.listKeys(outputKey!.endsWith('/') ? outputKey! : `${outputKey}/`)))
      else if (outputKey && (await outputs.exists(outputKey))) outputKeys.push(outputKey)
      else outputKey = undefined
      if (result?.posterKey) outputKeys.push(result.posterKey)
      if (outputs === bucket) doomed.push(...outputKeys)
      else {
        await outputs.deleteKeys(outputKeys)
        removedElsewhere = outputKeys.length
      }
    }
    doomed.push(...(await bucket.listKeys(scratchPrefix(renderId))))
    // What progress and renders ls read goes last: the render stays listed until everything else is gone.
    const last = [renderRecordKey(renderId), renderResultKey(renderId)]
    doomed.push(...records.filter((key) => !last.includes(key)), ...records.filter((key) => last.includes(key)))
    await bucket.deleteKeys(doomed)
    return {renderId, bucketName, ...(outputKey && {outputKey}), ...(outputKey && outputBucket && {outputBucket}), objectsDeleted: doomed.length + removedElsewhere}
  } catch (error) {
    throw awsFailure(error, `removing render ${renderId}`, {bucketName, endpoint: options.endpoint})
  }
}

/** A render without an end record may be running: only its execution can say it is not. */
async function assertNotRunning(options: RemoveRenderOptions, hasRecords: boolean): Promise<void> {
  const stateMachineArn = options.stateMachineArn ?? (options.env ?? process.env)[STATE_MACHINE_ENV]
  if (!stateMachineArn) {
    if (!hasRecords) return
    throw new EngineError(
      'INVALID_REQUEST',
      `render ${options.renderId} has no end record, so it may still be running; pass --state-machine-arn (or export ${STATE_MACHINE_ENV}) so that its execution can be checked, or \`engine lambda cancel\` it first`,
      {field: 'renderId', value: options.renderId},
    )
  }
  const sfn = options.sfn ?? createSfnClient(options)
  const execution = await sfn.send(new DescribeExecutionCommand({executionArn: executionArnFor(stateMachineArn, options.renderId)})).catch((error: Error) => {
    // Started from another state machine sharing the bucket: nothing says it runs.
    if (error.name === 'ExecutionDoesNotExist') return undefined
    throw error
  })
  if (execution?.status === 'RUNNING') {
    throw new EngineError('INVALID_REQUEST', `render ${options.renderId} is still running; \`engine lambda cancel ${options.renderId}\` stops it, then remove it`, {
      field: 'renderId',
      value: options.renderId,
      status: 'RUNNING',
    })
  }
}
