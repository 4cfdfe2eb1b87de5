import {RETRYABLE_TASK_ERROR} from './task-errors.js'
import {EXECUTION_TIMEOUT_SECONDS} from './runtime/render-timeout.js'

/** Amazon States Language, as plain JSON. */
export type StateMachineDefinition = Record<string, unknown> & {StartAt: string; States: Record<string, Record<string, unknown>>}

/** Lambda's own function run-time cap; a task may not outlive it. */
export const FUNCTION_TIMEOUT_SECONDS = 900

/** State names: the local stack routes these tasks to the handler by name. */
export const TASK_STATES = ['Plan', 'RenderChunk', 'Assemble', 'NotifyFailure'] as const
export type TaskStateName = (typeof TASK_STATES)[number]
/** The task inside the chunks' Map. */
export const MAP_TASK_STATE: TaskStateName = 'RenderChunk'
/** The same task inside the Distributed Map's child workflows. */
export const DISTRIBUTED_CHUNK_TASK_STATE = 'RenderChunkChild'
/** The chunks' two Maps: inline up to 40 at once, distributed (child workflows) beyond. */
export const CHUNK_MAP_STATES = {inline: 'RenderChunks', distributed: 'RenderChunksDistributed'} as const
/** The Distributed Map's label: its child executions are `<machine>/Chunks:<id>`, its map runs `mapRun:<machine>/Chunks:<id>`. */
export const CHUNK_MAP_LABEL = 'Chunks'

/**
 * Lambda refusing or failing to start an invocation: throttling (more chunks than the reserved or
 * account concurrency) and its own service errors. These wait for a slot: see THROTTLE_RETRY.
 */
export const THROTTLE_ERRORS = ['Lambda.TooManyRequestsException', 'Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException'] as const

/**
 * Errors worth retrying: the handler's known-flaky class (browser killed or crashed, target
 * closed, zygote, missing shared library, S3 internal errors) and Lambda's own. Deterministic
 * handler failures are named `Engine.<CODE>` and appear in no retrier.
 */
export const RETRIED_ERRORS = [RETRYABLE_TASK_ERROR, ...THROTTLE_ERRORS] as const

/**
 * A throttled invocation is retried until a slot frees, which takes as long as a running chunk
 * (up to the 15-minute cap): delays of 2, 4, 8, 16, 32, then 60 s, 40 attempts. Full jitter draws
 * each delay between 0 and that, so the whole wait is at most 2,162 s (36 min) and about half
 * that, 18 min, on average: longer than any chunk runs, inside the execution's hour.
 */
export const THROTTLE_RETRY = {
  ErrorEquals: [...THROTTLE_ERRORS],
  IntervalSeconds: 2,
  MaxAttempts: 40,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
} as const

/** Known-flaky handler failures: a bounded few more attempts (2, 4, 8, 16 s at most). */
export const FLAKY_RETRY = {
  ErrorEquals: [RETRYABLE_TASK_ERROR],
  IntervalSeconds: 2,
  MaxAttempts: 4,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
} as const

/** The longest a retrier can wait in total: the sum of its capped delays (no jitter). */
export function worstCaseRetryWaitSeconds(retrier: {IntervalSeconds: number; MaxAttempts: number; BackoffRate: number; MaxDelaySeconds: number}): number {
  let total = 0
  for (let attempt = 0; attempt < retrier.MaxAttempts; attempt++) total += Math.min(retrier.IntervalSeconds * retrier.BackoffRate ** attempt, retrier.MaxDelaySeconds)
  return total
}


/**
 * The render workflow, a standard workflow: `Plan` compiles once and chooses the chunks, a Map
 * renders them in parallel (at most `maxParallelChunks`, read from the plan's output), and
 * `Assemble` joins them without re-encoding. An inline Map runs at most 40 iterations at once, so
 * a plan that runs more at once (`$.plan.distributed`) goes to a Distributed Map instead, whose
 * child workflows (standard: a chunk may outlive an express workflow's 5 minutes) run the same
 * task with the same retries, up to 10,000 at once; the inline Map stays the path of smaller
 * renders because its history shows every invocation (progress and the cost report read it). States carry only ids and keys: the
 * compiled composition, the plan and every chunk live in S3, so no state payload grows with the
 * composition or with the chunk count beyond a few bytes per chunk. A failure anywhere is caught:
 * `NotifyFailure` writes the render's failure record, calls its webhook and deletes its scratch,
 * then `Failed` fails the execution with the original error and cause.
 *
 * The render's own deadline (`--timeout`, counted from the execution's start, which `Plan` is
 * handed) is kept by its tasks, so that running into it goes through the same Catch; the
 * execution's TimeoutSeconds is only a backstop above every deadline, and an execution ended by it
 * or stopped from outside runs no Catch: the stack's execution-end rule handles those.
 */
export function renderStateMachineDefinition(functionArn: string): StateMachineDefinition {
  const task = (parameters?: Record<string, unknown>) => ({
    Type: 'Task',
    Resource: functionArn,
    ...(parameters && {Parameters: parameters}),
    TimeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
    Retry: [THROTTLE_RETRY, FLAKY_RETRY],
  })
  // A failure anywhere (after the retries) is recorded and the render's webhook called, then the
  // execution fails with the original error and cause, so progress reports it as before.
  const onFailure = {Catch: [{ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'NotifyFailure'}]}
  const chunkItem = {action: 'renderChunk', 'renderId.$': '$.renderId', 'bucketName.$': '$.bucketName', 'chunk.$': '$$.Map.Item.Value'}
  return {
    Comment: 'engine distributed render: plan once, render chunks in parallel, assemble by stream copy',
    StartAt: 'Plan',
    TimeoutSeconds: EXECUTION_TIMEOUT_SECONDS,
    States: {
      Plan: {...task({action: 'plan', 'render.$': '$', 'executionStartedAt.$': '$$.Execution.StartTime'}), ResultPath: '$.plan', Next: 'FanOut', ...onFailure},
      FanOut: {
        Type: 'Choice',
        Choices: [
          // The check pass skipped the render: its outcome is the plan's, no chunk runs.
          {Variable: '$.plan.ended', IsPresent: true, Next: 'Ended'},
          {Variable: '$.plan.distributed', BooleanEquals: true, Next: CHUNK_MAP_STATES.distributed},
        ],
        Default: CHUNK_MAP_STATES.inline,
      },
      Ended: {Type: 'Pass', OutputPath: '$.plan.ended', End: true},
      [CHUNK_MAP_STATES.inline]: {
        Type: 'Map',
        ItemsPath: '$.plan.chunks',
        MaxConcurrencyPath: '$.plan.maxParallelChunks',
        ItemSelector: chunkItem,
        ItemProcessor: {
          ProcessorConfig: {Mode: 'INLINE'},
          StartAt: 'RenderChunk',
          States: {RenderChunk: {...task(), End: true}},
        },
        ResultPath: null,
        Next: 'Assemble',
        ...onFailure,
      },
      [CHUNK_MAP_STATES.distributed]: {
        Type: 'Map',
        Label: CHUNK_MAP_LABEL,
        ItemsPath: '$.plan.chunks',
        MaxConcurrencyPath: '$.plan.maxParallelChunks',
        ItemSelector: chunkItem,
        ItemProcessor: {
          ProcessorConfig: {Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD'},
          // State names are unique across a whole definition, nested ones included.
          StartAt: DISTRIBUTED_CHUNK_TASK_STATE,
          States: {[DISTRIBUTED_CHUNK_TASK_STATE]: {...task(), End: true}},
        },
        ResultPath: null,
        Next: 'Assemble',
        ...onFailure,
      },
      Assemble: {...task({action: 'assemble', 'renderId.$': '$.renderId', 'bucketName.$': '$.bucketName'}), End: true, ...onFailure},
      NotifyFailure: {
        ...task({action: 'notifyFailure', 'renderId.$': '$.renderId', 'bucketName.$': '$.bucketName', 'failure.$': '$.failure'}),
        // The failure it recorded: the caught one, or for the Distributed Map the failing chunk's own.
        ResultSelector: {'Error.$': '$.failure.Error', 'Cause.$': '$.failure.Cause'},
        ResultPath: '$.failure',
        Next: 'Failed',
      },
      Failed: {Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause'},
    },
  }
}

/**
 * States one chunk's child workflow of the Distributed Map enters on its way from StartAt to its
 * end: each a billed state transition (retries stay in their state).
 */
export function chunkChildStatesEntered(definition: StateMachineDefinition = renderStateMachineDefinition('')): number {
  const processor = definition.States[CHUNK_MAP_STATES.distributed]!.ItemProcessor as {StartAt: string; States: Record<string, {Next?: string; End?: boolean}>}
  let entered = 0
  for (let name: string | undefined = processor.StartAt; name !== undefined && entered < Object.keys(processor.States).length; entered++) {
    const state: {Next?: string; End?: boolean} = processor.States[name]!
    name = state.End ? undefined : state.Next
  }
  return entered
}
