import {describe, expect, it} from 'vitest'
import {LocalFunction} from '../../packages/lambda/src/lib/lambda/local/local-function.js'
import {LocalStepFunctions} from '../../packages/lambda/src/lib/lambda/local/local-step-functions.js'
import {renderStateMachineDefinition} from '../../packages/lambda/src/lib/lambda/state-machine-definition.js'
import {chunkFanOut, MAP_MAX_CONCURRENCY, MAX_HISTORY_EVENTS} from '../../packages/lambda/src/lib/lambda/workflow-limits.js'

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:engine-render'
const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:engine-render'

interface Event {
  action: string
}

/**
 * The local Step Functions with a stand-in for the function (the one part of AWS these tests do not
 * need): the plan returns `chunks` chunks, each chunk waits `chunkMs`.
 */
function stack(options: {chunks: number; maxParallelChunks: number; concurrency: number; chunkMs?: number; planPadding?: number}) {
  let running = 0
  let peak = 0
  const sfn = new LocalStepFunctions({
    machines: [{arn: STATE_MACHINE_ARN, definition: renderStateMachineDefinition(FUNCTION_ARN)}],
    function: new LocalFunction(options.concurrency, async (event) => {
      const {action} = event as Event
      if (action === 'plan') {
        const chunks = Array.from({length: options.chunks}, (_, index) => ({index, start: index, end: index + 1}))
        const {distributed} = chunkFanOut(options.chunks, options.maxParallelChunks)
        return {totalFrames: options.chunks, chunks, maxParallelChunks: options.maxParallelChunks, distributed, padding: 'x'.repeat(options.planPadding ?? 0)}
      }
      if (action === 'renderChunk') {
        running++
        peak = Math.max(peak, running)
        await new Promise((resolve) => setTimeout(resolve, options.chunkMs ?? 0))
        running--
      }
      return {}
    }),
  })
  const run = async () => {
    const {executionArn} = sfn.startExecution({stateMachineArn: STATE_MACHINE_ARN, input: JSON.stringify({renderId: 'r1', bucketName: 'bucket'})})
    for (let i = 0; i < 1200 && sfn.describeExecution({executionArn}).status === 'RUNNING'; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    return {execution: sfn.describeExecution({executionArn}), history: () => allEvents(sfn, executionArn), peak: () => peak}
  }
  return {sfn, run}
}

function allEvents(sfn: LocalStepFunctions, executionArn: string) {
  const events = []
  let nextToken: string | undefined
  do {
    const page = sfn.getExecutionHistory({executionArn, maxResults: 1000, nextToken})
    events.push(...page.events)
    nextToken = page.nextToken
  } while (nextToken)
  return events
}

describe('local Step Functions enforce the AWS quotas', () => {
  it('an inline Map runs at most 40 iterations at once, whatever MaxConcurrency says', {timeout: 60_000}, async () => {
    // The definition's inline Map, given a MaxConcurrency above 40 (as a plan before the Distributed Map would have).
    const sfn = new LocalStepFunctions({
      machines: [{arn: STATE_MACHINE_ARN, definition: renderStateMachineDefinition(FUNCTION_ARN)}],
      function: new LocalFunction(1000, async (event) => {
        const {action} = event as Event
        if (action === 'plan') return {totalFrames: 100, chunks: Array.from({length: 100}, (_, index) => ({index, start: index, end: index + 1})), maxParallelChunks: 100, distributed: false}
        if (action === 'renderChunk') {
          running++
          peak = Math.max(peak, running)
          await new Promise((resolve) => setTimeout(resolve, 50))
          running--
        }
        return {}
      }),
    })
    let running = 0
    let peak = 0
    const {executionArn} = sfn.startExecution({stateMachineArn: STATE_MACHINE_ARN, input: JSON.stringify({renderId: 'r1', bucketName: 'bucket'})})
    for (let i = 0; i < 600 && sfn.describeExecution({executionArn}).status === 'RUNNING'; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    const execution = sfn.describeExecution({executionArn})
    await sfn.close()
    expect(execution.status).toBe('SUCCEEDED')
    expect(peak).toBe(MAP_MAX_CONCURRENCY)
  })

  it('more than 40 chunks at once run through the Distributed Map: as many at once as maxParallelChunks asks', {timeout: 60_000}, async () => {
    const {sfn, run} = stack({chunks: 100, maxParallelChunks: 64, concurrency: 1000, chunkMs: 100})
    const {execution, history, peak} = await run()
    const {mapRuns} = sfn.listMapRuns({executionArn: execution.executionArn})
    const mapRun = sfn.describeMapRun({mapRunArn: mapRuns[0]?.mapRunArn})
    await sfn.close()
    expect(execution.status).toBe('SUCCEEDED')
    expect(peak()).toBe(64)
    expect(mapRuns).toHaveLength(1)
    expect(mapRun).toMatchObject({status: 'SUCCEEDED', maxConcurrency: 64, itemCounts: {total: 100, succeeded: 100, failed: 0}})
    expect(mapRun.mapRunArn).toMatch(/:mapRun:engine-render\/Chunks:[0-9a-f-]{36}$/)
    // The chunks ran in the map run's children: the render's own history has only Plan and Assemble's invocations.
    expect(history().filter((event) => event.type === 'LambdaFunctionScheduled')).toHaveLength(2)
  })

  it('an invocation beyond the concurrency is throttled (Lambda.TooManyRequestsException), retried, and the render still succeeds', {timeout: 120_000}, async () => {
    const {sfn, run} = stack({chunks: 6, maxParallelChunks: 6, concurrency: 2, chunkMs: 300})
    const {execution, history, peak} = await run()
    await sfn.close()
    expect(execution.status).toBe('SUCCEEDED')
    expect(peak()).toBeLessThanOrEqual(2)
    const refused = history().filter((event) => event.type === 'LambdaFunctionStartFailed')
    expect(refused.length).toBeGreaterThan(0)
    expect(refused[0]).toMatchObject({lambdaFunctionStartFailedEventDetails: {error: 'Lambda.TooManyRequestsException'}})
  })

  it('state data over 256 KiB fails the execution (States.DataLimitExceeded), past Retry and Catch', {timeout: 60_000}, async () => {
    const {sfn, run} = stack({chunks: 1, maxParallelChunks: 1, concurrency: 4, planPadding: 300_000})
    const {execution, history} = await run()
    await sfn.close()
    expect(execution).toMatchObject({status: 'FAILED', error: 'States.DataLimitExceeded'})
    expect(execution.cause).toMatch(/exceeding the maximum number of bytes/)
    expect(history().some((event) => event.type === 'TaskStateEntered' && JSON.stringify(event).includes('NotifyFailure'))).toBe(false)
  })

  it('a history past 25,000 events fails the execution (States.Runtime)', {timeout: 240_000}, async () => {
    // 7 events per chunk: 4,000 chunks need 28,000.
    const {sfn, run} = stack({chunks: 4000, maxParallelChunks: 40, concurrency: 1000})
    const {execution, history} = await run()
    await sfn.close()
    expect(execution).toMatchObject({status: 'FAILED', error: 'States.Runtime'})
    expect(execution.cause).toMatch(/maximum number of history events \(25000\)/)
    expect(history()).toHaveLength(MAX_HISTORY_EVENTS)
  })
})
