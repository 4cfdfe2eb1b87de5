import {DescribeExecutionCommand, DescribeMapRunCommand, GetExecutionHistoryCommand, ListMapRunsCommand, type HistoryEvent, type SFNClient} from '@aws-sdk/client-sfn'
import type {S3Client} from '@aws-sdk/client-s3'
import {EngineError, type ErrorJson} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, createSfnClient, STATE_MACHINE_ENV, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {estimateCost, type CostEstimate} from './estimate-cost.js'
import type {ChunkItem, RenderInput} from './render-input.js'
import type {ChunkManifest, InvocationCost, RenderRecord, RenderResultRecord} from './render-records.js'
import {outputUrl, type OutputUrl, type OutputUrlOptions} from './output-url.js'
import {BucketObjects} from './s3-objects.js'
import type {ChunkProgressRecord} from './actions/chunk-progress.js'
import {chunkProgressKey, chunkProgressPrefix, chunksPrefix, renderRecordKey, renderResultKey, renderWebhookDeliveryKey} from './storage-keys.js'
import type {WebhookDelivery, WebhookEventType} from 'html-video-engine/internal/lib/notify/index.js'
import {parseTaskCause} from './task-errors.js'
import {readInvocations} from './runtime/invocation-records.js'
import {childTransitions, costOfInvocations, statesEntered, type ChildWorkflows, type InvocationCounts} from './runtime/render-cost.js'
import {CHUNK_MAP_STATES, chunkChildStatesEntered} from './state-machine-definition.js'
import {chunkFanOut} from './workflow-limits.js'

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE'
export type RenderStage = 'planning' | 'rendering' | 'assembling' | 'done' | 'failed'

export interface RenderProgress {
  renderId: string
  executionArn: string
  status: ExecutionStatus
  stage: RenderStage
  chunks: {done: number; total?: number}
  frames: {done: number; total?: number}
  /** `url` is the `s3://` location; `https` the link to share once the output is stored (see `privacy`). */
  output: {bucketName: string; outputKey: string; url: string; bytes?: number; https?: OutputUrl; /** The poster stored beside the output (`config.poster`). */ posterKey?: string}
  error?: ErrorJson
  startedAt: string
  stoppedAt?: string
  elapsedSeconds: number
  /** Lambda GB-seconds of the invocations so far plus state transitions; S3 not included. */
  cost: CostEstimate
  /** The render's function invocations so far by how they ended (`stopped`: still running when the render stopped; billed too). */
  invocations?: InvocationCounts
  warnings: {code: string; message: string}[]
  /** The webhook call made when the render ended (`--webhook`), once made. */
  webhook?: WebhookDelivery & {type: WebhookEventType}
}

export interface ProgressOptions extends AwsClientOptions, OutputUrlOptions {
  /** A renderId (needs `stateMachineArn` or ENGINE_SFN_ARN) or an executionArn. */
  render: string
  stateMachineArn?: string
  sfn?: SFNClient
  s3?: S3Client
}

const DEFAULT_MEMORY_MB = 10240

/** Execution ARNs are the state machine's ARN with `execution` for `stateMachine`, plus the name. */
export function executionArnFor(stateMachineArn: string, renderId: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${renderId}`
}

/**
 * Where a render stands: its execution's status and error, its records in S3 (plan, finished
 * chunks, frame counts, the output) while it runs, and its history once it has ended.
 */
export async function getRenderProgress(options: ProgressOptions): Promise<RenderProgress> {
  const executionArn = resolveExecutionArn(options)
  const sfn = options.sfn ?? createSfnClient(options)
  let execution
  try {
    execution = await sfn.send(new DescribeExecutionCommand({executionArn}))
  } catch (error) {
    throw awsFailure(error, `reading the progress of ${executionArn}`, {endpoint: options.endpoint})
  }
  const status = execution.status as ExecutionStatus
  // While the render runs, its records in S3 say where it stands; the execution history (paged,
  // and throttled on AWS) is read once it has ended, for the exact stage and cost.
  let events: HistoryEvent[] | undefined
  if (status !== 'RUNNING') {
    try {
      events = await readHistory(sfn, executionArn)
    } catch (error) {
      throw awsFailure(error, `reading the history of ${executionArn}`, {endpoint: options.endpoint})
    }
  }
  const input = JSON.parse(execution.input ?? '{}') as RenderInput
  const s3 = options.s3 ?? createS3Client(options)
  const bucket = new BucketObjects(s3, input.bucketName)
  const recordsFailure = (error: unknown) => {
    throw awsFailure(error, `reading the records of render ${input.renderId}`, {bucketName: input.bucketName, endpoint: options.endpoint})
  }
  const [record, webhook, invocationRecords] = await Promise.all([
    bucket.getJson<RenderRecord>(renderRecordKey(input.renderId)),
    bucket.getJson<RenderProgress['webhook']>(renderWebhookDeliveryKey(input.renderId)),
    readInvocations(bucket, input.renderId),
  ]).catch(recordsFailure)
  // Assemble writes the result, then deletes the scratch (chunk manifests and counts), and only
  // then does the execution report SUCCEEDED. So the scratch is read before the result: a result
  // still missing after it was missing while the scratch was read whole. Read the other way round,
  // a poll could find neither, count no frames, and a progress bar would jump back to zero.
  const scratch = events === undefined ? await readScratch(bucket, record, input.renderId, options.endpoint) : undefined
  const result = await bucket.getJson<RenderResultRecord>(renderResultKey(input.renderId)).catch(recordsFailure)

  // Once the result is written, it says every chunk is done.
  const finished = scratch ? (result ? (record?.chunks ?? []).map((chunk, index) => ({index: chunk.index, invocation: result.chunks[index]})) : scratch.finished) : undefined
  const finishedChunks = finished
    ? new Set(finished.map((chunk) => chunk.index))
    : new Set(events!.filter((event) => event.type === 'MapIterationSucceeded').map((event) => event.mapIterationSucceededEventDetails?.index))
  const succeeded = status === 'SUCCEEDED'
  const runningFrames = scratch && !result ? scratch.runningFrames : 0
  const finishedFrames = frameCount((record?.chunks ?? []).filter((chunk) => finishedChunks.has(chunk.index)))
  const framesDone = succeeded ? (record?.totalFrames ?? 0) : finishedFrames + runningFrames
  // A prefix of frame files has no one URL to give.
  const outputBucket = input.config?.outputBucket ?? input.bucketName
  const https =
    succeeded && result?.outputKind === 'file' ? await outputUrl(s3, outputBucket, input.outputKey, {...options, downloadName: input.config?.downloadName}) : undefined
  const startedAt = execution.startDate ?? new Date()
  const stoppedAt = execution.stopDate
  const memoryMb = record?.plan.memoryMb ?? DEFAULT_MEMORY_MB
  // Renders started before invocations kept their own records are costed from the history alone.
  const {children, warning: childCostWarning} = record && chunkFanOut(record.chunks.length, record.maxParallelChunks).distributed ? await childWorkflows(sfn, executionArn) : {}
  const recorded = invocationRecords.length > 0 ? costOfInvocations(invocationRecords, events, memoryMb, children) : undefined
  return {
    renderId: input.renderId,
    executionArn,
    status,
    stage: events ? stageOf(status, events) : stageFromRecords(record, finishedChunks.size),
    chunks: {done: succeeded ? (record?.chunks.length ?? 0) : finishedChunks.size, total: record?.chunks.length},
    frames: {done: framesDone, total: record?.totalFrames},
    output: {
      bucketName: outputBucket,
      outputKey: input.outputKey,
      url: `s3://${outputBucket}/${input.outputKey}`,
      bytes: result?.bytes,
      ...(https && {https}),
      ...(result?.posterKey && {posterKey: result.posterKey}),
    },
    error: status === 'RUNNING' || succeeded ? undefined : (parseTaskCause(execution.error, execution.cause) ?? {code: 'INTERNAL', message: `the execution ended ${status}`}),
    startedAt: startedAt.toISOString(),
    stoppedAt: stoppedAt?.toISOString(),
    elapsedSeconds: Math.round(((stoppedAt ?? new Date()).getTime() - startedAt.getTime()) / 100) / 10,
    cost: recorded
      ? recorded.cost
      : events
      ? estimateCost(invocationDurations(events).map((durationMs) => ({durationMs, memoryMb})), statesEntered(events) + childTransitions(children, true))
      : estimateRunningCost(record, finished ?? [], children),
    ...(recorded && {invocations: recorded.invocations}),
    warnings: [...(record?.warnings ?? []), ...(result?.warnings ?? []), ...(childCostWarning ? [childCostWarning] : [])],
    ...(webhook && {webhook}),
  }
}

/** A finished chunk, and what its invocation cost when known. */
type FinishedChunk = Pick<ChunkManifest, 'index'> & {invocation?: InvocationCost}

/** The manifests of the chunks that have finished, each written once its segments are stored. */
async function readFinishedChunks(bucket: BucketObjects, renderId: string): Promise<FinishedChunk[]> {
  const keys = (await bucket.listKeys(chunksPrefix(renderId))).filter((key) => /chunk-\d+\.json$/.test(key))
  const manifests = await Promise.all(keys.map((key) => bucket.getJson<ChunkManifest>(key)))
  return manifests.filter((manifest): manifest is ChunkManifest => manifest !== undefined)
}

/** Where a running render is, from its records: planned or not, and how many chunks are done. */
function stageFromRecords(record: RenderRecord | undefined, finishedChunks: number): RenderStage {
  if (!record) return 'planning'
  return finishedChunks < record.chunks.length ? 'rendering' : 'assembling'
}

/**
 * The cost so far of a running render, from the invocations its records describe (the plan and
 * the finished chunks) and the states those took: the exact figure comes from the history at the end.
 */
function estimateRunningCost(record: RenderRecord | undefined, finished: readonly FinishedChunk[], children: ChildWorkflows | undefined): CostEstimate {
  const invocations = [...(record ? [record.plan] : []), ...finished.flatMap((chunk) => (chunk.invocation ? [chunk.invocation] : []))]
  return estimateCost(invocations, (record ? 2 : 1) + finished.length + childTransitions(children, false))
}

/**
 * The Distributed Map's child workflows so far, from its map run's counts: two requests whatever
 * the number of chunks, where reading every child's history would take one or more per chunk (up
 * to 10,000, against GetExecutionHistory's throttle). What each child enters comes from its
 * definition, which has one path: its chunk task. Before the map has started there is no map run.
 * A caller that may not read map runs (a role from an older `lambda policies`) still gets the
 * progress, with a warning that the cost leaves the children's transitions out.
 */
async function childWorkflows(sfn: SFNClient, executionArn: string): Promise<{children?: ChildWorkflows; warning?: {code: string; message: string}}> {
  try {
    const mapRunArn = (await sfn.send(new ListMapRunsCommand({executionArn, maxResults: 1}))).mapRuns?.[0]?.mapRunArn
    if (!mapRunArn) return {}
    const counts = (await sfn.send(new DescribeMapRunCommand({mapRunArn}))).executionCounts
    return {children: {started: Math.max(0, (counts?.total ?? 0) - (counts?.pending ?? 0)), statesEach: chunkChildStatesEntered()}}
  } catch (error) {
    const {name, message} = error as Error
    return {
      warning: {
        code: 'cost-without-child-workflows',
        message: `the cost leaves out the state transitions of the render's Distributed Map children (2 a chunk): its map run could not be read (${name}: ${message}); the caller needs states:ListMapRuns and states:DescribeMapRun (\`engine lambda policies role\`)`,
      },
    }
  }
}

function frameCount(chunks: readonly ChunkItem[]): number {
  return chunks.reduce((sum, chunk) => sum + chunk.end - chunk.start, 0)
}

/** The chunks a running render has finished, and the frames its other chunks report so far. */
async function readScratch(bucket: BucketObjects, record: RenderRecord | undefined, renderId: string, endpoint: string | undefined): Promise<{finished: FinishedChunk[]; runningFrames: number}> {
  try {
    const finished = await readFinishedChunks(bucket, renderId)
    const runningFrames = record ? await framesOfRunningChunks(bucket, record, new Set(finished.map((chunk) => chunk.index))) : 0
    return {finished, runningFrames}
  } catch (error) {
    throw awsFailure(error, `reading the chunk records of render ${renderId}`, {bucketName: bucket.bucketName, endpoint})
  }
}

/** Frames captured so far by chunks that have not finished, from the counts they report. */
async function framesOfRunningChunks(bucket: BucketObjects, record: RenderRecord, finished: ReadonlySet<number | undefined>): Promise<number> {
  const reported = new Set(await bucket.listKeys(chunkProgressPrefix(record.renderId)))
  const running = record.chunks
    .filter((chunk) => !finished.has(chunk.index))
    .map((chunk) => ({chunk, key: chunkProgressKey(record.renderId, chunk.index)}))
    .filter(({key}) => reported.has(key))
  const counts = await Promise.all(
    running.map(async ({chunk, key}) => Math.min((await readChunkProgress(bucket, key))?.framesDone ?? 0, chunk.end - chunk.start)),
  )
  return counts.reduce((sum, frames) => sum + frames, 0)
}

/**
 * A running chunk's count, or undefined while it cannot be read whole. The chunk rewrites the
 * record every 2 s; the local stack's S3 server can serve a read that overlaps a rewrite short
 * (see atomic-object-writes.ts), which parses as broken JSON. Such a read is made once more (the
 * next rewrite is 2 s away); if that too is broken, the count is left out rather than failing the
 * progress call, since it is only an estimate of work in flight.
 */
async function readChunkProgress(bucket: BucketObjects, key: string, retries = 1): Promise<ChunkProgressRecord | undefined> {
  try {
    return await bucket.getJson<ChunkProgressRecord>(key)
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error
    return retries > 0 ? readChunkProgress(bucket, key, retries - 1) : undefined
  }
}

/** The execution of `render`: an executionArn as given, or a renderId's under the state machine. */
export function resolveExecutionArn(options: Pick<ProgressOptions, 'render' | 'stateMachineArn' | 'env'>): string {
  if (options.render.startsWith('arn:')) return options.render
  const stateMachineArn = options.stateMachineArn ?? (options.env ?? process.env)[STATE_MACHINE_ENV]
  if (!stateMachineArn) {
    throw new EngineError('INVALID_FLAG', `render "${options.render}" is a renderId: set ${STATE_MACHINE_ENV} (or pass the executionArn) so that its execution can be found`, {
      render: options.render,
    })
  }
  return executionArnFor(stateMachineArn, options.render)
}

async function readHistory(sfn: SFNClient, executionArn: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = []
  let nextToken: string | undefined
  do {
    const page = await sfn.send(new GetExecutionHistoryCommand({executionArn, nextToken, maxResults: 1000}))
    events.push(...(page.events ?? []))
    nextToken = page.nextToken
  } while (nextToken)
  return events
}

const STAGE_OF_STATE: Record<string, RenderStage> = {
  Plan: 'planning',
  FanOut: 'rendering',
  [CHUNK_MAP_STATES.inline]: 'rendering',
  [CHUNK_MAP_STATES.distributed]: 'rendering',
  RenderChunk: 'rendering',
  Assemble: 'assembling',
  NotifyFailure: 'failed',
  Failed: 'failed',
}

function stageOf(status: ExecutionStatus, events: readonly HistoryEvent[]): RenderStage {
  if (status === 'SUCCEEDED') return 'done'
  if (status !== 'RUNNING') return 'failed'
  const entered = events.filter((event) => event.type?.endsWith('StateEntered')).at(-1)
  return STAGE_OF_STATE[entered?.stateEnteredEventDetails?.name ?? 'Plan'] ?? 'planning'
}

/** Each finished invocation's run time: from LambdaFunctionStarted to the event that ended it. */
function invocationDurations(events: readonly HistoryEvent[]): number[] {
  const started = new Map<number, Date>()
  const durations: number[] = []
  for (const event of events) {
    if (event.type === 'LambdaFunctionStarted' && event.timestamp) started.set(event.id!, event.timestamp)
    else if (/^LambdaFunction(Succeeded|Failed|TimedOut)$/.test(event.type ?? '')) {
      const start = started.get(event.previousEventId!)
      if (start && event.timestamp) durations.push(event.timestamp.getTime() - start.getTime())
    }
  }
  return durations
}
