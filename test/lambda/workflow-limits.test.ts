import {describe, expect, it} from 'vitest'
import {assertWithinWorkflowBudget, clampParallelChunks, HISTORY_EVENTS_PER_CHUNK, MAX_CHUNKS, MAX_HISTORY_EVENTS} from '../../src/lib/lambda/workflow-limits.js'

describe('what one workflow execution can hold', () => {
  it('parallel chunks above 40 are clamped to 40, with a warning saying why', () => {
    expect(clampParallelChunks(16)).toEqual({maxParallelChunks: 16})
    expect(clampParallelChunks(40)).toEqual({maxParallelChunks: 40})
    const clamped = clampParallelChunks(64)
    expect(clamped.maxParallelChunks).toBe(40)
    expect(clamped.warning).toMatchObject({code: 'parallelism-clamped', message: expect.stringMatching(/maxParallelChunks 64 is above the 40 iterations/)})
  })

  it('a render with more chunks than the history budget, or state data over 256 KiB, fails naming the flags that fix it', () => {
    // The budget leaves room for retries: more than half the history is spare at the cap.
    expect(MAX_CHUNKS * HISTORY_EVENTS_PER_CHUNK).toBeLessThan(MAX_HISTORY_EVENTS / 2)
    expect(() => assertWithinWorkflowBudget(MAX_CHUNKS, 100_000)).not.toThrow()
    expect(() => assertWithinWorkflowBudget(MAX_CHUNKS + 1, 1000)).toThrow(/1001 chunks, more than the 1000 .*25000-event history: use a larger --chunk-size, or --target-chunk-frames/)
    expect(() => assertWithinWorkflowBudget(10, 262_145)).toThrow(/262145 bytes .* over Step Functions' limit of 262144 bytes: use a larger --chunk-size.*smaller --variables/)
  })
})
