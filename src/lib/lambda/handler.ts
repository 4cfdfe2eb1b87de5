import type {S3Client} from '@aws-sdk/client-s3'
import '../builtin-plugins.js'
import {EngineError, isEngineError} from '../errors/engine-error.js'
import {assembleAction} from './actions/assemble-action.js'
import {finishBatchAction} from './actions/finish-batch-action.js'
import type {ActionContext} from './actions/action-context.js'
import {notifyFailureAction} from './actions/notify-failure-action.js'
import {planAction} from './actions/plan-action.js'
import {renderChunkAction} from './actions/render-chunk-action.js'
import {stillAction} from './actions/still-action.js'
import {createS3Client} from './aws-clients.js'
import {failureMetricLine} from './function-metrics.js'
import {handlerEventSchema} from './render-input.js'
import {toTaskError} from './task-errors.js'

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
 * `notifyFailure` (the workflow's Catch), `still` (invoked directly, no workflow) and
 * `finishBatch` (the batch workflow's last step).
 * Failures leave as a TaskError whose name tells the state machine whether to retry.
 */
export async function handler(event: unknown, context: LambdaContext = {}): Promise<unknown> {
  const startedAt = performance.now()
  let chunk: number | undefined
  try {
    const parsed = handlerEventSchema.safeParse(event)
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'event'}: ${issue.message}`).join('; ')
      throw new EngineError('INVALID_REQUEST', `the render function got an event it cannot handle: ${problems}`, {issues: parsed.error.issues})
    }
    s3 ??= createS3Client()
    const memoryMb = Number(context.memoryLimitInMB ?? process.env[LOCAL_MEMORY_ENV] ?? DEFAULT_MEMORY_MB)
    const actionContext: ActionContext = {s3, memoryMb, startedAt}
    const request = parsed.data
    if (request.action === 'renderChunk') chunk = request.chunk.index
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
    }
  } catch (error) {
    countFailure(error)
    throw toTaskError(error, {chunk, logStream: context.logStreamName ?? process.env.AWS_LAMBDA_LOG_STREAM_NAME})
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
