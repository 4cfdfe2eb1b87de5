import type {S3Client} from '@aws-sdk/client-s3'
import 'html-video-engine/internal/lib/builtin-plugins.js'
import {EngineError, isEngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {assembleAction} from './actions/assemble-action.js'
import {finishBatchAction} from './actions/finish-batch-action.js'
import {notifyRowAction} from './actions/notify-row-action.js'
import type {ActionContext} from './actions/action-context.js'
import {notifyFailureAction} from './actions/notify-failure-action.js'
import {planAction} from './actions/plan-action.js'
import {renderChunkAction} from './actions/render-chunk-action.js'
import {stillAction} from './actions/still-action.js'
import {executionEndedAction} from './actions/execution-ended-action.js'
import {createS3Client} from './aws-clients.js'
import {failureMetricLine} from './function-metrics.js'
import {handlerEventSchema, type HandlerEvent} from './render-input.js'
import {recordInvocation, type InvocationOutcome} from './runtime/invocation-records.js'
import {BucketObjects} from './s3-objects.js'
import {chunkFailureKey} from './storage-keys.js'
import {toTaskError, tryParse} from './task-errors.js'

/** Memory assumed for the cost estimate when not on Lambda (the deploy default). */
export const LOCAL_MEMORY_ENV = 'ENGINE_LAMBDA_MEMORY_MB'
const DEFAULT_MEMORY_MB = 10240

/** The subset of the Lambda context the handler reads. */
export interface LambdaContext {
  memoryLimitInMB?: string
  logStreamName?: string
}

let s3: S3Client | undefined

/**
 * The one function of the stack, dispatching on `action`: `plan`, `renderChunk`, `assemble`,
 * `notifyFailure` (the workflow's Catch), `still` (invoked directly, no workflow),
 * `finishBatch` (the batch workflow's last step), `notifyRow` (a batch row's webhook) and `executionEnded` (the execution-end rule's
 * target). Failures leave as a TaskError whose name tells the state machine whether to retry.
 * Every invocation for a render leaves its cost record (see invocation-records.ts).
 */
export async function handler(event: unknown, context: LambdaContext = {}): Promise<unknown> {
  const startedAt = performance.now()
  let chunk: number | undefined
  let request: HandlerEvent | undefined
  let memoryMb = DEFAULT_MEMORY_MB
  let outcome: InvocationOutcome = 'failed'
  try {
    const parsed = handlerEventSchema.safeParse(event)
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'event'}: ${issue.message}`).join('; ')
      throw new EngineError('INVALID_REQUEST', `the render function got an event it cannot handle: ${problems}`, {issues: parsed.error.issues})
    }
    s3 ??= createS3Client()
    memoryMb = Number(context.memoryLimitInMB ?? process.env[LOCAL_MEMORY_ENV] ?? DEFAULT_MEMORY_MB)
    const actionContext: ActionContext = {s3, memoryMb, startedAt}
    request = parsed.data
    if (request.action === 'renderChunk') chunk = request.chunk.index
    const result = await dispatch(request, actionContext)
    outcome = 'succeeded'
    return result
  } catch (error) {
    countFailure(error)
    if (isEngineError(error, 'CANCELLED')) outcome = 'stopped'
    const taskError = toTaskError(error, {chunk, logStream: context.logStreamName ?? process.env.AWS_LAMBDA_LOG_STREAM_NAME})
    if (request?.action === 'renderChunk' && outcome === 'failed' && s3) await noteChunkFailure(new BucketObjects(s3, request.bucketName), request.renderId, request.chunk.index, taskError)
    throw taskError
  } finally {
    const render = request && renderOf(request)
    if (render && s3) {
      const record = {action: request!.action, ...(chunk !== undefined && {chunk}), outcome, durationMs: performance.now() - startedAt, memoryMb}
      // The cost record must not change the invocation's own outcome.
      await recordInvocation(new BucketObjects(s3, render.bucketName), render.renderId, record).catch((error: unknown) => {
        console.error(`render ${render.renderId}: the invocation's cost record could not be written: ${(error as Error).message}`)
      })
    }
  }
}

async function dispatch(request: HandlerEvent, actionContext: ActionContext): Promise<unknown> {
  switch (request.action) {
    case 'plan':
      return await planAction(request, actionContext)
    case 'renderChunk':
      return await renderChunkAction(request, actionContext)
    case 'assemble':
      return await assembleAction(request, actionContext)
    case 'still':
      return await stillAction(request, actionContext)
    case 'notifyFailure':
      return await notifyFailureAction(request, actionContext)
    case 'finishBatch':
      return await finishBatchAction(request, actionContext)
    case 'notifyRow':
      return await notifyRowAction(request, actionContext)
    case 'executionEnded':
      return await executionEndedAction(request, actionContext)
  }
}

/** The render an invocation works for (a still and a batch's last step have none). */
function renderOf(request: HandlerEvent): {renderId: string; bucketName: string} | undefined {
  switch (request.action) {
    case 'plan':
      return request.render
    case 'renderChunk':
    case 'assemble':
    case 'notifyFailure':
      return request
    case 'executionEnded': {
      const bucketName = tryParse(request.input ?? undefined)?.bucketName
      return typeof bucketName === 'string' ? {renderId: request.renderId, bucketName} : undefined
    }
    default:
      return undefined
  }
}

/**
 * On Lambda, a failure of the composition (or a chunk stopping with its render) is counted in the
 * function's own metric, so the `function-faults` alarm can leave it out (see stack-alarms.ts).
 */
function countFailure(error: unknown): void {
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME
  if (!functionName) return
  const line = failureMetricLine(functionName, isEngineError(error) ? error.code : 'INTERNAL')
  if (line) console.log(line)
}

/**
 * A chunk in the Distributed Map's children fails its child execution, and the Map fails with
 * States.ExceedToleratedFailureThreshold only: the chunk's own error is kept in the scratch, where
 * the failure path reads it (see chunkFailureOf). Best effort: the invocation fails either way.
 */
async function noteChunkFailure(bucket: BucketObjects, renderId: string, index: number, error: Error): Promise<void> {
  await bucket.putJson(chunkFailureKey(renderId, index), {Error: error.name, Cause: error.message}).catch((written: unknown) => {
    console.error(`render ${renderId}: chunk ${index}'s failure could not be noted: ${(written as Error).message}`)
  })
}
