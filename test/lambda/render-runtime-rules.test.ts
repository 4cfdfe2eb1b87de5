import {describe, expect, it} from 'vitest'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {planChunks} from '../../packages/lambda/src/lib/lambda/chunk-plan.js'
import {chunkWorkers, defaultChunkFrames, functionVcpus, idleCpuWarning, invocationVcpus} from '../../packages/lambda/src/lib/lambda/runtime/chunk-sizing.js'
import {invocationKey, parseInvocationKey, type InvocationRecord} from '../../packages/lambda/src/lib/lambda/runtime/invocation-records.js'
import {costOfInvocations} from '../../packages/lambda/src/lib/lambda/runtime/render-cost.js'
import {chunkChildStatesEntered} from '../../packages/lambda/src/lib/lambda/state-machine-definition.js'
import {defaultTimeoutSeconds, MAX_RENDER_TIMEOUT_SECONDS, parseTimeout, renderDeadline} from '../../packages/lambda/src/lib/lambda/runtime/render-timeout.js'

describe('chunks sized to the function', () => {
  it('a function gets one vCPU per 1,769 MB, six at most', () => {
    expect([128, 1769, 1770, 3008, 5307, 10_240].map(functionVcpus)).toEqual([1, 1, 2, 2, 3, 6])
    // The local stack runs on the developer's cores, never more than the function would have.
    expect(invocationVcpus(10_240, 2)).toBe(2)
    expect(invocationVcpus(3008, 32)).toBe(2)
  })

  it('a chunk runs one capture worker per vCPU, at most one per segment, or --concurrency-per-chunk', () => {
    expect(chunkWorkers(2, 6)).toBe(2)
    expect(chunkWorkers(6, 6)).toBe(6)
    expect(chunkWorkers(12, 6)).toBe(6)
    expect(chunkWorkers(12, 6, 3)).toBe(3)
    expect(chunkWorkers(1, 6, 3)).toBe(1)
  })

  it("the default chunk holds a segment for every worker: a 6-vCPU function's chunks of 4 s segments are 720 frames", () => {
    expect(defaultChunkFrames(120, 6)).toBe(720)
    expect(defaultChunkFrames(120, 2)).toBe(240)
    expect(defaultChunkFrames(15, 6)).toBe(240)
    // 60 s of 1080p30: 8 chunks of 2 segments became 3 chunks of 6 (the last one shorter).
    const chunks = planChunks(1800, 120, {chunkSize: defaultChunkFrames(120, 6)}).chunks
    expect(chunks.map((chunk) => chunk.end - chunk.start)).toEqual([720, 720, 360])
  })

  it('a chosen chunk size that leaves vCPUs idle is named, with the flag that fixes it', () => {
    expect(idleCpuWarning(2, 6, 120)?.message).toMatch(/2 segment\(s\) of 120 frames but the function has 6 vCPUs: 4 of them idle.*--frames-per-chunk 720/)
    expect(idleCpuWarning(6, 6, 120)).toBeUndefined()
  })
})

describe('render timeouts', () => {
  it('defaults to the longest the chunk plan can legitimately take: each wave of chunks at the 15-minute cap, plus plan, assemble and a wave of retries', () => {
    expect(defaultTimeoutSeconds(16, 16)).toBe(3600)
    expect(defaultTimeoutSeconds(1, 16)).toBe(3600)
    expect(defaultTimeoutSeconds(1000, 16)).toBe(900 * (63 + 3))
    expect(defaultTimeoutSeconds(1000, 1)).toBe(MAX_RENDER_TIMEOUT_SECONDS)
  })

  it('--timeout takes seconds or s/m/h and refuses what is out of range, naming the flag and the fix', () => {
    expect(['45', '90s', '30m', '2h', '1.5h'].map((text) => parseTimeout(text))).toEqual([45, 90, 1800, 7200, 5400])
    for (const bad of ['0', '2', '25h', '10 minutes', '-5m', '']) {
      let thrown: unknown
      try {
        parseTimeout(bad)
      } catch (error) {
        thrown = error
      }
      expect(isEngineError(thrown, 'INVALID_FLAG'), bad).toBe(true)
      expect((thrown as Error).message).toMatch(/--timeout: .* from 5s to 24h/)
    }
  })

  it("counts from the execution's start", () => {
    expect(renderDeadline('2026-01-01T00:00:00.000Z', 90)).toBe('2026-01-01T00:01:30.000Z')
    expect(renderDeadline(undefined, 10, Date.parse('2026-01-01T00:00:00.000Z'))).toBe('2026-01-01T00:00:10.000Z')
  })
})

describe('invocation cost records', () => {
  it('carry the cost in the key, read back from a listing alone', () => {
    const key = invocationKey('r1', {action: 'renderChunk', chunk: 12, outcome: 'stopped', durationMs: 4321.6, memoryMb: 3008})
    expect(key).toMatch(/^renders\/r1\/invocations\/renderChunk-chunk-00012\.stopped\.4322ms\.3008mb\.[0-9a-f]{8}$/)
    expect(parseInvocationKey(key)).toEqual({action: 'renderChunk', chunk: 12, outcome: 'stopped', durationMs: 4322, memoryMb: 3008})
    expect(parseInvocationKey(invocationKey('r1', {action: 'plan', outcome: 'succeeded', durationMs: 10, memoryMb: 10_240}))).toEqual({action: 'plan', outcome: 'succeeded', durationMs: 10, memoryMb: 10_240})
    expect(parseInvocationKey('renders/r1/invocations/something-else')).toBeUndefined()
  })
})

describe('the cost of a render whose chunks ran as Distributed Map children', () => {
  it('adds each child\'s start, and with the history its one state too, to what the render\'s own count holds', () => {
    expect(chunkChildStatesEntered()).toBe(1)
    const records = Array.from({length: 5}, () => ({durationMs: 1000, memoryMb: 3008, outcome: 'succeeded'})) as unknown as InvocationRecord[]
    const children = {started: 3, statesEach: chunkChildStatesEntered()}
    // Running (no history): plan + 3 chunks + assemble as entered states, the Choice and the Map, plus 3 child starts.
    expect(costOfInvocations(records, undefined, 3008, children).cost.stateTransitions).toBe(5 + 2 + 3)
    expect(costOfInvocations(records, undefined, 3008).cost.stateTransitions).toBe(5 + 2)
    // Ended: the render's own history (Plan, FanOut, the Map, Assemble), and per child its start and its task.
    const events = ['TaskStateEntered', 'ChoiceStateEntered', 'MapStateEntered', 'TaskStateEntered'].map((type, id) => ({type, id})) as never[]
    expect(costOfInvocations(records, events, 3008, children).cost.stateTransitions).toBe(4 + 3 * 2)
  })
})
