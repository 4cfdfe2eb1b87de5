import {RETRYABLE_TASK_ERROR} from './task-errors.js'

/** Amazon States Language, as plain JSON. */
export type StateMachineDefinition = Record<string, unknown> & {StartAt: string; States: Record<string, Record<string, unknown>>}

/** Lambda's own function run-time cap; a task may not outlive it. */
export const FUNCTION_TIMEOUT_SECONDS = 900
/** Bounds a stuck render (e.g. a chunk retried until its attempts run out). */
export const EXECUTION_TIMEOUT_SECONDS = 3600

/** State names: the local stack routes these tasks to the handler by name. */
export const TASK_STATES = ['Plan', 'RenderChunk', 'Assemble'] as const
export type TaskStateName = (typeof TASK_STATES)[number]

/**
 * Errors worth retrying: the handler's known-flaky class and Lambda's own service failures and
 * throttling. Deterministic handler failures are named `Engine.<CODE>` and appear in no retrier.
 */
export const RETRIED_ERRORS = [
  RETRYABLE_TASK_ERROR,
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
] as const

export const RETRY_POLICY = {
  ErrorEquals: [...RETRIED_ERRORS],
  IntervalSeconds: 2,
  MaxAttempts: 4,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
} as const

/**
 * The render workflow, a standard workflow: `Plan` compiles once and chooses the chunks, the
 * `RenderChunks` Map renders them in parallel (at most `maxParallelChunks`, read from the plan's
 * output), and `Assemble` joins them without re-encoding. States carry only ids and keys: the
 * compiled composition, the plan and every chunk live in S3, so no state payload grows with the
 * composition or with the chunk count beyond a few bytes per chunk.
 */
export function renderStateMachineDefinition(functionArn: string): StateMachineDefinition {
  const task = (parameters?: Record<string, unknown>) => ({
    Type: 'Task',
    Resource: functionArn,
    ...(parameters && {Parameters: parameters}),
    TimeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
    Retry: [RETRY_POLICY],
  })
  return {
    Comment: 'engine distributed render: plan once, render chunks in parallel, assemble by stream copy',
    StartAt: 'Plan',
    TimeoutSeconds: EXECUTION_TIMEOUT_SECONDS,
    States: {
      Plan: {...task({action: 'plan', 'render.$': '$'}), ResultPath: '$.plan', Next: 'RenderChunks'},
      RenderChunks: {
        Type: 'Map',
        ItemsPath: '$.plan.chunks',
        MaxConcurrencyPath: '$.plan.maxParallelChunks',
        ItemSelector: {
          action: 'renderChunk',
          'renderId.$': '$.renderId',
          'bucketName.$': '$.bucketName',
          'chunk.$': '$$.Map.Item.Value',
        },
        ItemProcessor: {
          ProcessorConfig: {Mode: 'INLINE'},
          StartAt: 'RenderChunk',
          States: {RenderChunk: {...task(), End: true}},
        },
        ResultPath: null,
        Next: 'Assemble',
      },
      Assemble: {...task({action: 'assemble', 'renderId.$': '$.renderId', 'bucketName.$': '$.bucketName'}), End: true},
    },
  }
}
