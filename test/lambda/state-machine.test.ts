import {StateMachine, type StateMachineDefinition} from 'aws-local-stepfunctions'
import {describe, expect, it} from 'vitest'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {FLAKY_RETRY, renderStateMachineDefinition, THROTTLE_ERRORS, THROTTLE_RETRY, worstCaseRetryWaitSeconds} from '../../packages/lambda/src/lib/lambda/state-machine-definition.js'
import {parseTaskCause, RETRYABLE_TASK_ERROR, toTaskError} from '../../packages/lambda/src/lib/lambda/task-errors.js'

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:engine-render'
const definition = renderStateMachineDefinition(FUNCTION_ARN)

type Handler = (input: Record<string, unknown>) => Promise<unknown>

/** Runs the real definition with the three tasks replaced, retries without waiting. */
async function execute(handlers: {Plan?: Handler; RenderChunk?: Handler; Assemble?: Handler; NotifyFailure?: Handler}, chunks = 3, maxParallelChunks = 16) {
  const machine = new StateMachine(definition as unknown as StateMachineDefinition)
  const plan: Handler = async () => ({
    totalFrames: chunks * 30,
    chunks: Array.from({length: chunks}, (_, index) => ({index, start: index * 30, end: index * 30 + 30})),
    maxParallelChunks,
    distributed: false,
  })
  const run = machine.run({renderId: 'r1', bucketName: 'bucket'} as never, {
    overrides: {
      taskResourceLocalHandlers: {
        Plan: (handlers.Plan ?? plan) as never,
        RenderChunk: (handlers.RenderChunk ?? (async () => ({}))) as never,
        Assemble: (handlers.Assemble ?? (async () => ({outputKey: 'out.mp4'}))) as never,
        NotifyFailure: (handlers.NotifyFailure ?? (async (input: Record<string, unknown>) => ({notified: false, failure: input.failure}))) as never,
      },
      retryIntervalOverrides: {Plan: 0, RenderChunk: 0, Assemble: 0, NotifyFailure: 0},
    },
  })
  try {
    return {output: await run.result, error: undefined}
  } catch (error) {
    return {output: undefined, error: error as Error}
  }
}

/** What the handler throws for `error`. */
function failWith(error: unknown): never {
  throw toTaskError(error)
}

describe('render state machine (ASL)', () => {
  it('is Plan -> Map(RenderChunk, MaxConcurrency from the plan) -> Assemble, tasks bounded by the 15-minute cap', () => {
    expect(definition.StartAt).toBe('Plan')
    expect(definition.States.Plan.Next).toBe('FanOut')
    // More chunks at once than an inline Map runs (40) go to the Distributed Map.
    expect(definition.States.FanOut).toEqual({
      Type: 'Choice',
      Choices: [
        {Variable: '$.plan.ended', IsPresent: true, Next: 'Ended'},
        {Variable: '$.plan.distributed', BooleanEquals: true, Next: 'RenderChunksDistributed'},
      ],
      Default: 'RenderChunks',
    })
    // A render its check pass skipped ends at the plan, with the plan's outcome.
    expect(definition.States.Ended).toEqual({Type: 'Pass', OutputPath: '$.plan.ended', End: true})
    const distributed = definition.States.RenderChunksDistributed
    expect(distributed).toMatchObject({
      Type: 'Map',
      Label: 'Chunks',
      ItemsPath: '$.plan.chunks',
      MaxConcurrencyPath: '$.plan.maxParallelChunks',
      ItemProcessor: {ProcessorConfig: {Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD'}, StartAt: 'RenderChunkChild'},
      ResultPath: null,
      Next: 'Assemble',
    })
    const map = definition.States.RenderChunks
    expect(distributed.ItemSelector).toEqual(map.ItemSelector)
    // The same task, retries and timeout in both.
    expect((distributed.ItemProcessor as {States: Record<string, unknown>}).States.RenderChunkChild).toEqual((map.ItemProcessor as {States: Record<string, unknown>}).States.RenderChunk)
    expect(map.Type).toBe('Map')
    expect(map.ItemsPath).toBe('$.plan.chunks')
    expect(map.MaxConcurrencyPath).toBe('$.plan.maxParallelChunks')
    expect(map.Next).toBe('Assemble')
    expect(definition.States.Assemble.End).toBe(true)
    const tasks = [definition.States.Plan, definition.States.Assemble, definition.States.NotifyFailure, (map.ItemProcessor as {States: Record<string, Record<string, unknown>>}).States.RenderChunk]
    for (const task of tasks) {
      expect(task.Resource).toBe(FUNCTION_ARN)
      expect(task.TimeoutSeconds).toBe(900)
      const [throttle, flaky] = task.Retry as {ErrorEquals: string[]; MaxAttempts: number}[]
      expect(throttle.ErrorEquals).toEqual([...THROTTLE_ERRORS])
      expect(flaky).toMatchObject({ErrorEquals: [RETRYABLE_TASK_ERROR], MaxAttempts: 4, IntervalSeconds: 2, BackoffRate: 2, MaxDelaySeconds: 60})
      // Only named, known-flaky errors: no catch-all that would retry deterministic failures.
      for (const retrier of [throttle, flaky]) {
        expect(retrier.ErrorEquals).not.toContain('States.ALL')
        expect(retrier.ErrorEquals).not.toContain('States.TaskFailed')
      }
    }
    // Every failure of the render's states is caught into NotifyFailure, which ends in a Fail state.
    for (const state of [definition.States.Plan, map, distributed, definition.States.Assemble]) expect(state.Catch).toEqual([{ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'NotifyFailure'}])
    expect(definition.States.NotifyFailure.Next).toBe('Failed')
    expect(definition.States.Failed).toEqual({Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause'})
    // The execution timeout is a backstop above the longest --timeout (24 h) plus one task's cap;
    // Plan gets the execution's start, from which the render's own deadline counts.
    expect(definition.TimeoutSeconds).toBe(24 * 3600 + 900)
    expect(definition.States.Plan.Parameters).toEqual({action: 'plan', 'render.$': '$', 'executionStartedAt.$': '$$.Execution.StartTime'})
  })

  it('passes ids and keys between states and returns the assembly result', async () => {
    const chunkInputs: unknown[] = []
    let assembleInput: unknown
    const {output, error} = await execute({
      RenderChunk: async (input) => {
        chunkInputs.push(input)
        return {index: (input.chunk as {index: number}).index}
      },
      Assemble: async (input) => {
        assembleInput = input
        return {outputKey: 'out.mp4'}
      },
    })
    expect(error).toBeUndefined()
    expect(output).toEqual({outputKey: 'out.mp4'})
    expect(chunkInputs).toHaveLength(3)
    expect(chunkInputs).toContainEqual({action: 'renderChunk', renderId: 'r1', bucketName: 'bucket', chunk: {index: 1, start: 30, end: 60}})
    expect(assembleInput).toEqual({action: 'assemble', renderId: 'r1', bucketName: 'bucket'})
  })

  it('retries a known-flaky chunk failure (browser crash) and succeeds', async () => {
    const attempts = new Map<number, number>()
    const {error} = await execute({
      RenderChunk: async (input) => {
        const index = (input.chunk as {index: number}).index
        attempts.set(index, (attempts.get(index) ?? 0) + 1)
        if (index === 1 && attempts.get(index)! < 3) failWith(new EngineError('BROWSER_FAILED', 'the page crashed during capture'))
        return {index}
      },
    })
    expect(error).toBeUndefined()
    expect(attempts.get(1)).toBe(3)
    expect(attempts.get(0)).toBe(1)
  })

  it('a throttled invocation waits for a slot: retried long past the flaky budget, minutes in the worst case', async () => {
    let attempts = 0
    const {error} = await execute({
      RenderChunk: async () => {
        if (++attempts <= 12) throw Object.assign(new Error('Rate Exceeded.'), {name: 'Lambda.TooManyRequestsException'})
        return {}
      },
    }, 1)
    expect(error).toBeUndefined()
    expect(attempts).toBe(13)
    // 2+4+8+16+32 s, then 60 s each: the longest total wait outlasts a chunk at the 15-minute cap
    // and stays inside the execution's hour; full jitter halves it on average.
    expect(worstCaseRetryWaitSeconds(THROTTLE_RETRY)).toBe(2162)
    expect(worstCaseRetryWaitSeconds(THROTTLE_RETRY) / 2).toBeGreaterThan(900)
    expect(worstCaseRetryWaitSeconds(THROTTLE_RETRY)).toBeLessThan(definition.TimeoutSeconds as number)
    expect(worstCaseRetryWaitSeconds(FLAKY_RETRY)).toBe(30)
  })

  it('gives up on a flaky failure after 4 retries', async () => {
    let attempts = 0
    const {error} = await execute({
      RenderChunk: async () => {
        attempts++
        failWith(Object.assign(new Error('We encountered an internal error'), {name: 'InternalError', $metadata: {httpStatusCode: 500}}))
      },
    }, 1)
    expect(error).toBeDefined()
    expect(attempts).toBe(5)
  })

  it('never retries a deterministic failure', async () => {
    let chunkAttempts = 0
    const chunk = await execute({
      RenderChunk: async () => {
        chunkAttempts++
        failWith(new EngineError('PAGE_ERROR', 'the composition threw: title is not defined'))
      },
    }, 1)
    expect(chunk.error?.message).toMatch(/Engine\.PAGE_ERROR|title is not defined/)
    expect(chunkAttempts).toBe(1)

    let planAttempts = 0
    const plan = await execute({
      Plan: async () => {
        planAttempts++
        failWith(new EngineError('COMPOSITION_INVALID', 'index.html: data-duration is missing'))
      },
    })
    expect(plan.error).toBeDefined()
    expect(planAttempts).toBe(1)
  })

  it('a failure in any step (after its retries) goes through NotifyFailure, then fails with the original error', async () => {
    for (const step of ['Plan', 'RenderChunk', 'Assemble'] as const) {
      const notified: Record<string, unknown>[] = []
      const {output, error} = await execute({
        [step]: async () => failWith(new EngineError('PAGE_ERROR', `${step} broke`)),
        NotifyFailure: async (input) => {
          notified.push(input)
          return {notified: true, failure: input.failure}
        },
      }, 1)
      expect(output, step).toBeUndefined()
      // The Fail state re-raises what was caught: the execution's error is the step's own.
      const failed = error?.cause as Error
      expect(failed.name, step).toBe('Engine.PAGE_ERROR')
      expect(parseTaskCause(failed.name, failed.message), step).toEqual({code: 'PAGE_ERROR', message: `${step} broke`})
      expect(notified, step).toHaveLength(1)
      expect(notified[0]).toMatchObject({action: 'notifyFailure', renderId: 'r1', bucketName: 'bucket', failure: {Error: 'Engine.PAGE_ERROR'}})
      expect(parseTaskCause('Engine.PAGE_ERROR', (notified[0].failure as {Cause: string}).Cause)).toEqual({code: 'PAGE_ERROR', message: `${step} broke`})
    }
    // The execution fails with the failure NotifyFailure recorded: for a Distributed Map, the failing chunk's own rather than the Map's.
    const chunkError = {Error: 'Engine.PAGE_ERROR', Cause: JSON.stringify({code: 'PAGE_ERROR', message: 'chunk 41 broke', chunk: 41})}
    const recorded = await execute({
      RenderChunk: async () => failWith(new EngineError('PAGE_ERROR', 'RenderChunk broke')),
      NotifyFailure: async () => ({notified: true, failure: chunkError}),
    }, 1)
    expect((recorded.error?.cause as Error).name).toBe('Engine.PAGE_ERROR')
    expect(parseTaskCause('Engine.PAGE_ERROR', (recorded.error?.cause as Error).message)).toMatchObject({code: 'PAGE_ERROR', message: 'chunk 41 broke', chunk: 41})
    let notifications = 0
    const succeeded = await execute({NotifyFailure: async () => ({notified: ++notifications})})
    expect(succeeded.error).toBeUndefined()
    expect(notifications).toBe(0)
  })

  it('runs at most maxParallelChunks chunks at once and all of them', async () => {
    let running = 0
    let peak = 0
    const done: number[] = []
    const {error} = await execute(
      {
        RenderChunk: async (input) => {
          running++
          peak = Math.max(peak, running)
          await new Promise((resolve) => setTimeout(resolve, 20))
          running--
          done.push((input.chunk as {index: number}).index)
          return {}
        },
      },
      6,
      2,
    )
    expect(error).toBeUndefined()
    expect(peak).toBe(2)
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5])
  })
})

describe('task error names (what Retry matches)', () => {
  it('known-flaky failures are Engine.Retryable', () => {
    const flaky = [
      new EngineError('BROWSER_FAILED', 'the browser exited unexpectedly during capture'),
      new EngineError('PAGE_TIMEOUT', 'the page did not answer within 60 s'),
      new Error('Protocol error (Runtime.evaluate): Target closed'),
      new Error('Protocol error: Session closed. Most likely the page has been closed.'),
      Object.assign(new Error('Please reduce your request rate.'), {name: 'SlowDown'}),
      Object.assign(new Error('Rate exceeded'), {name: 'ThrottlingException'}),
      Object.assign(new Error('socket hang up'), {code: 'ECONNRESET'}),
    ]
    for (const error of flaky) expect(toTaskError(error).name, error.message).toBe(RETRYABLE_TASK_ERROR)
  })

  it('deterministic failures are Engine.<CODE> and carry the EngineError', () => {
    const error = toTaskError(new EngineError('COMPOSITION_INVALID', 'index.html: data-duration is missing'))
    expect(error.name).toBe('Engine.COMPOSITION_INVALID')
    expect(JSON.parse(error.message)).toEqual({code: 'COMPOSITION_INVALID', message: 'index.html: data-duration is missing'})
    expect(toTaskError(new EngineError('ENCODE_FAILED', 'ffmpeg exited with code 1')).name).toBe('Engine.ENCODE_FAILED')
    expect(toTaskError(new TypeError('x is undefined')).name).toBe('Engine.INTERNAL')
  })
})

describe('reading a failed execution back', () => {
  it('recovers the EngineError from a Lambda error cause', () => {
    const cause = JSON.stringify({errorType: 'Engine.PAGE_ERROR', errorMessage: JSON.stringify({code: 'PAGE_ERROR', message: 'title is not defined'}), trace: []})
    expect(parseTaskCause('Engine.PAGE_ERROR', cause)).toEqual({code: 'PAGE_ERROR', message: 'title is not defined'})
  })

  it('a chunk over the 15-minute cap says what to change', () => {
    const timedOut = parseTaskCause('Sandbox.Timedout', JSON.stringify({errorMessage: 'Task timed out after 900.00 seconds'}))
    expect(timedOut?.message).toMatch(/15-minute function cap: reduce --chunk-size, lower --target-chunk-frames, or deploy with more --memory/)
    expect(parseTaskCause('States.Timeout', '')?.message).toMatch(/reduce --chunk-size/)
  })
})
