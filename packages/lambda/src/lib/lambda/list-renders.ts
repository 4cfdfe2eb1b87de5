import type {S3Client} from '@aws-sdk/client-s3'
import {DescribeExecutionCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {z} from 'zod'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, createSfnClient, STATE_MACHINE_ENV, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {mapLimited} from './map-limited.js'
import {executionArnFor} from './render-progress.js'
import {BucketObjects, isMissing} from './s3-objects.js'
import {parseTaskCause} from './task-errors.js'
import {RENDERS_PREFIX, renderCancelKey, renderFailureKey, renderRecordKey, renderResultKey} from './storage-keys.js'

export const DEFAULT_RENDER_LIST_LIMIT = 20
export const MAX_RENDER_LIST_LIMIT = 1000

export type RenderListStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed-out'

/** One render, as `renders ls` shows it. */
export interface RenderSummary {
  renderId: string
  status: RenderListStatus
  /** When it was started, read from the renderId (its first part is the start time in base 36 milliseconds). */
  startedAt?: string
  /** When it succeeded, failed or was cancelled. */
  endedAt?: string
  siteId?: string
  outputKey?: string
  format?: string
  width?: number
  height?: number
  totalFrames?: number
  chunks?: number
  /** Size of the output, once stored. */
  bytes?: number
  error?: {code: string; message: string}
}

export interface ListRendersOptions extends AwsClientOptions {
  bucketName: string
  /** The newest this many renders (default 20). */
  limit?: number
  /**
   * With the state machine known (or ENGINE_SFN_ARN), a render with no end record is checked
   * against its execution, so that one stopped or timed out outside the engine is not shown running.
   */
  stateMachineArn?: string
  s3?: S3Client
  sfn?: SFNClient
}

/** Renders' records read at once. */
const READ_CONCURRENCY = 8

// Only the fields shown are required: a record of another version still lists.
const planned = z.object({siteId: z.string(), outputKey: z.string(), format: z.string(), width: z.number(), height: z.number(), totalFrames: z.number(), chunks: z.array(z.unknown())})
const produced = z.object({outputKey: z.string(), bytes: z.number(), finishedAt: z.string()})
const failed = z.object({code: z.string(), message: z.string(), failedAt: z.string()})
const cancelled = z.object({cancelledAt: z.string()})

/**
 * The newest renders of a bucket, newest first, from their records under `renders/` (what was
 * planned, produced, why it failed or who cancelled it). A render shows once its plan step has
 * written `render.json`, about a second after it starts, or once it is cancelled.
 */
export async function listRenders(options: ListRendersOptions): Promise<RenderSummary[]> {
  const limit = assertLimit(options.limit ?? DEFAULT_RENDER_LIST_LIMIT)
  const bucket = new BucketObjects(options.s3 ?? createS3Client(options), options.bucketName)
  const stateMachineArn = options.stateMachineArn ?? (options.env ?? process.env)[STATE_MACHINE_ENV]
  try {
    // renderIds begin with their start time in fixed-width base 36, so name order is start order.
    const renderIds = (await bucket.listPrefixes(RENDERS_PREFIX))
      .map((prefix) => prefix.slice(RENDERS_PREFIX.length, -1))
      .sort()
      .reverse()
      .slice(0, limit)
    const summaries = await mapLimited(renderIds, READ_CONCURRENCY, (renderId) => summarize(bucket, renderId))
    if (!stateMachineArn) return summaries
    const sfn = options.sfn ?? createSfnClient(options)
    return await mapLimited(summaries, READ_CONCURRENCY, async (summary) => (summary.status === 'running' ? checkExecution(sfn, stateMachineArn, summary) : summary))
  } catch (error) {
    throw awsFailure(error, `listing the renders of bucket "${options.bucketName}"`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
}

function assertLimit(limit: number): number {
  if (Number.isInteger(limit) && limit >= 1 && limit <= MAX_RENDER_LIST_LIMIT) return limit
  throw new EngineError('INVALID_FLAG', `--limit: ${limit} is not a count of renders to list; pass a whole number from 1 to ${MAX_RENDER_LIST_LIMIT}`, {
    field: 'limit',
    value: limit,
  })
}

async function summarize(bucket: BucketObjects, renderId: string): Promise<RenderSummary> {
  const [record, result, failure, cancel] = await Promise.all(
    [renderRecordKey, renderResultKey, renderFailureKey, renderCancelKey].map((key) => bucket.getJson<unknown>(key(renderId))),
  )
  const plan = planned.safeParse(record)
  const summary: RenderSummary = {
    renderId,
    status: 'running',
    ...startedAtOf(renderId),
    ...(plan.success && {
      siteId: plan.data.siteId,
      outputKey: plan.data.outputKey,
      format: plan.data.format,
      width: plan.data.width,
      height: plan.data.height,
      totalFrames: plan.data.totalFrames,
      chunks: plan.data.chunks.length,
    }),
  }
  const done = produced.safeParse(result)
  if (done.success) return {...summary, status: 'succeeded', endedAt: done.data.finishedAt, outputKey: done.data.outputKey, bytes: done.data.bytes}
  const stopped = cancelled.safeParse(cancel)
  if (stopped.success) return {...summary, status: 'cancelled', endedAt: stopped.data.cancelledAt}
  const failing = failed.safeParse(failure)
  if (failing.success) return {...summary, status: 'failed', endedAt: failing.data.failedAt, error: {code: failing.data.code, message: failing.data.message}}
  return summary
}

function startedAtOf(renderId: string): {startedAt?: string} {
  const millis = Number.parseInt(renderId.split('-')[0], 36)
  const date = new Date(millis)
  return Number.isNaN(date.getTime()) ? {} : {startedAt: date.toISOString()}
}

/** The execution's own word on a render that left no end record. */
async function checkExecution(sfn: SFNClient, stateMachineArn: string, summary: RenderSummary): Promise<RenderSummary> {
  let execution
  try {
    execution = await sfn.send(new DescribeExecutionCommand({executionArn: executionArnFor(stateMachineArn, summary.renderId)}))
  } catch (error) {
    // A render of another state machine sharing the bucket: its records are all there is.
    if ((error as Error).name === 'ExecutionDoesNotExist' || isMissing(error)) return summary
    throw error
  }
  const endedAt = execution.stopDate?.toISOString()
  switch (execution.status) {
    case 'ABORTED':
      return {...summary, status: 'cancelled', endedAt}
    case 'TIMED_OUT':
      return {...summary, status: 'timed-out', endedAt}
    case 'FAILED': {
      const error = parseTaskCause(execution.error, execution.cause) ?? {code: 'INTERNAL', message: 'the execution failed'}
      return {...summary, status: 'failed', endedAt, error: {code: error.code, message: error.message}}
    }
    default:
      return summary
  }
}
