import {describe, expect, it} from 'vitest'
import {assertWithinWorkflowBudget, chunkFanOut, HISTORY_EVENTS_PER_CHUNK, MAX_CHUNKS, MAX_HISTORY_EVENTS} from '../../packages/lambda/src/lib/lambda/workflow-limits.js'

describe('what one workflow execution can hold', () => {
  it('more than 40 chunks at once fan out through the Distributed Map, up to its 10,000, clamped above with a warning', () => {
    expect(chunkFanOut(100, 16)).toEqual({maxParallelChunks: 16, distributed: false})
    expect(chunkFanOut(100, 40)).toEqual({maxParallelChunks: 40, distributed: false})
    expect(chunkFanOut(100, 64)).toEqual({maxParallelChunks: 64, distributed: true})
    // 64 allowed, but only 30 chunks: they all fit in the inline Map.
    expect(chunkFanOut(30, 64)).toEqual({maxParallelChunks: 64, distributed: false})
    const clamped = chunkFanOut(1000, 20_000)
    expect(clamped).toMatchObject({maxParallelChunks: 10_000, distributed: true})
    expect(clamped.warning).toMatchObject({code: 'parallelism-clamped', message: expect.stringMatching(/maxParallelChunks 20000 is above the 10000 child workflows/)})
  })

  it('a render with more chunks than the history budget, or state data over 256 KiB, fails naming the flags that fix it', () => {
    // The budget leaves room for retries: more than half the history is spare at the cap.
    expect(MAX_CHUNKS * HISTORY_EVENTS_PER_CHUNK).toBeLessThan(MAX_HISTORY_EVENTS / 2)
    expect(() => assertWithinWorkflowBudget(MAX_CHUNKS, 100_000)).not.toThrow()
    expect(() => assertWithinWorkflowBudget(MAX_CHUNKS + 1, 1000)).toThrow(/1001 chunks, more than the 1000 .*25000-event history: use a larger --chunk-size, or --target-chunk-frames/)
    expect(() => assertWithinWorkflowBudget(10, 262_145)).toThrow(/262145 bytes .* over Step Functions' limit of 262144 bytes: use a larger --chunk-size.*smaller --variables/)
  })
})
