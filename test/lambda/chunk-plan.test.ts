import {describe, expect, it} from 'vitest'
import {DEFAULT_CHUNK_SIZE, DEFAULT_MAX_PARALLEL_CHUNKS, chunksAtOnce, planChunks, throttledChunksWarning} from '../../packages/lambda/src/lib/lambda/chunk-plan.js'
import type {FrameRange} from '../../src/lib/plan/render-plan.js'
import {gridSegments} from '../../src/lib/plan/segment-grid.js'

/** Frames per grid segment at 30 fps with the default 2 s keyframe interval. */
const S30 = 60

function covers(chunks: FrameRange[], total: number): boolean {
  return chunks.every((chunk, i) => chunk.start === (i === 0 ? 0 : chunks[i - 1].end) && chunk.end > chunk.start) && chunks.at(-1)!.end === total
}

describe('chunk planning', () => {
  it('defaults: chunks of 240 frames, 16 at once, the last one shorter', () => {
    expect(DEFAULT_CHUNK_SIZE).toBe(240)
    expect(DEFAULT_MAX_PARALLEL_CHUNKS).toBe(16)
    const plan = planChunks(1000, S30)
    expect(plan.chunks).toEqual([
      {start: 0, end: 240},
      {start: 240, end: 480},
      {start: 480, end: 720},
      {start: 720, end: 960},
      {start: 960, end: 1000},
    ])
    expect(plan.maxParallelChunks).toBe(16)
    expect(planChunks(240, S30).chunks).toEqual([{start: 0, end: 240}])
    expect(planChunks(1, S30).chunks).toEqual([{start: 0, end: 1}])
  })

  it('chunk size: ceil(total / chunkSize) chunks even beyond maxParallelChunks, which only limits concurrency', () => {
    // 1 s keyframe interval at 30 fps: segments of 30 frames, so chunks of 30 are whole segments.
    const plan = planChunks(90, 30, {chunkSize: 30})
    expect(plan.chunks).toEqual([
      {start: 0, end: 30},
      {start: 30, end: 60},
      {start: 60, end: 90},
    ])
    const many = planChunks(10_000, 50, {chunkSize: 100, maxParallelChunks: 4})
    expect(many.chunks).toHaveLength(100)
    expect(many.maxParallelChunks).toBe(4)
    expect(covers(many.chunks, 10_000)).toBe(true)
  })

  it('target chunk frames: clamp(ceil(total / target), 1, maxParallelChunks) near-equal chunks', () => {
    expect(planChunks(90, 30, {targetChunkFrames: 30}).chunks).toHaveLength(3)
    // Four chunks as before, but no longer 25 frames each: the 7 segments of 15 frames (the last
    // one 10) are shared out whole, earlier chunks taking the remainder.
    expect(planChunks(100, 15, {targetChunkFrames: 30}).chunks).toEqual([
      {start: 0, end: 30},
      {start: 30, end: 60},
      {start: 60, end: 90},
      {start: 90, end: 100},
    ])
    // More chunks than the cap: stays at the cap, with longer chunks.
    const capped = planChunks(10_000, S30, {targetChunkFrames: 10, maxParallelChunks: 16})
    expect(capped.chunks).toHaveLength(16)
    expect(covers(capped.chunks, 10_000)).toBe(true)
    // Never below one chunk, never empty chunks.
    expect(planChunks(5, S30, {targetChunkFrames: 1000}).chunks).toEqual([{start: 0, end: 5}])
    expect(planChunks(3, 1, {targetChunkFrames: 1, maxParallelChunks: 16}).chunks).toHaveLength(3)
    // Fewer segments than the target asks for: one chunk per segment, none split.
    expect(planChunks(3, S30, {targetChunkFrames: 1, maxParallelChunks: 16}).chunks).toEqual([{start: 0, end: 3}])
    expect(planChunks(130, S30, {targetChunkFrames: 10}).chunks).toEqual([
      {start: 0, end: 60},
      {start: 60, end: 120},
      {start: 120, end: 130},
    ])
  })

  it('target chunk frames are ignored when a chunk size is given', () => {
    const plan = planChunks(1000, S30, {chunkSize: 500, targetChunkFrames: 10})
    expect(plan.mode).toBe('chunk-size')
    expect(plan.chunks).toHaveLength(2)
  })

  it('the chunk count never exceeds ceil(totalFrames / chunkSize)', () => {
    for (const total of [1, 7, 89, 90, 91, 1000, 4321]) {
      for (const chunkSize of [1, 2, 30, 240, 5000]) {
        for (const segmentFrames of [1, 7, 60, 250]) {
          const {chunks} = planChunks(total, segmentFrames, {chunkSize})
          expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / chunkSize))
          expect(covers(chunks, total)).toBe(true)
        }
      }
    }
  })

  it('cuts chunks only on the segment grid, so chunks encode the very segments of a local render', () => {
    // 25 fps, 2 s: segments of 50. A chunk size of 240 rounds up to 5 whole segments (250 frames).
    expect(planChunks(1000, 50).chunks.map((chunk) => chunk.start)).toEqual([0, 250, 500, 750])
    expect(planChunks(1000, 60, {chunkSize: 100}).chunks).toHaveLength(9)
    for (const tuning of [{}, {chunkSize: 100}, {chunkSize: 1}, {targetChunkFrames: 70}, {targetChunkFrames: 10, maxParallelChunks: 5}]) {
      for (const segmentFrames of [1, 13, 60]) {
        const whole = gridSegments({start: 0, end: 1001}, segmentFrames)
        const {chunks} = planChunks(1001, segmentFrames, tuning)
        expect(chunks.every((chunk) => chunk.start % segmentFrames === 0)).toBe(true)
        expect(chunks.flatMap((chunk) => gridSegments(chunk, segmentFrames))).toEqual(whole)
      }
    }
  })

  it('refuses values that are not positive integers, naming the field', () => {
    expect(() => planChunks(90, S30, {chunkSize: 0})).toThrow(/config\.chunkSize: 0 is not a positive integer/)
    expect(() => planChunks(90, S30, {maxParallelChunks: 1.5})).toThrow(/config\.maxParallelChunks/)
    expect(() => planChunks(90, S30, {targetChunkFrames: -3})).toThrow(/config\.targetChunkFrames/)
  })

  it('warns when more chunks run at once than the reserved concurrency, or else the account, allows', () => {
    // 40 chunks, 16 at once, 8 reserved: throttled.
    expect(throttledChunksWarning(chunksAtOnce(planChunks(9600, S30)), {reservedConcurrency: 8, unreservedConcurrency: 990})).toMatchObject({
      code: 'chunks-throttled',
      message: expect.stringMatching(/16 chunks run at once .* reserved concurrency is 8: .*--max-parallel-chunks 8 .*--concurrency 16 or more/),
    })
    // Only 3 chunks: never more than 3 at once.
    expect(throttledChunksWarning(chunksAtOnce(planChunks(720, S30)), {reservedConcurrency: 8})).toBeUndefined()
    expect(throttledChunksWarning(chunksAtOnce(planChunks(9600, S30, {maxParallelChunks: 8})), {reservedConcurrency: 8})).toBeUndefined()
    // The shared pool of a new account (10): throttled, and the fix is a quota increase.
    expect(throttledChunksWarning(chunksAtOnce(planChunks(9600, S30)), {unreservedConcurrency: 10})).toMatchObject({
      code: 'chunks-throttled',
      message: expect.stringMatching(/16 chunks run at once but the account runs at most 10 functions at once .*--max-parallel-chunks 10 .*"Concurrent executions" quota/),
    })
    expect(throttledChunksWarning(chunksAtOnce(planChunks(9600, S30)), {unreservedConcurrency: 1000})).toBeUndefined()
    // Neither known (an older stack record): nothing to compare with.
    expect(throttledChunksWarning(chunksAtOnce(planChunks(9600, S30)), {})).toBeUndefined()
  })
})
