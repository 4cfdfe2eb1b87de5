import {describe, expect, it} from 'vitest'
import {CHUNK_PROGRESS_INTERVAL_MS, ChunkProgressReporter, type ChunkProgressRecord} from '../../packages/lambda/src/lib/lambda/actions/chunk-progress.js'

describe('a running chunk reports its frames', () => {
  const recorder = () => {
    const writes: ChunkProgressRecord[] = []
    let release: () => void = () => {}
    const bucket = {
      putJson: (_key: string, value: unknown) => {
        writes.push(value as ChunkProgressRecord)
        return new Promise<void>((resolve) => (release = resolve))
      },
    }
    return {writes, bucket, finishWrite: () => release()}
  }

  it('at its first frame, then at most once per interval and never two writes at once', async () => {
    let now = 1_000_000
    const {writes, bucket, finishWrite} = recorder()
    const reporter = new ChunkProgressReporter(bucket, 'k', () => now)
    reporter.frameDone()
    expect(writes).toEqual([{framesDone: 1}])
    now += CHUNK_PROGRESS_INTERVAL_MS
    reporter.frameDone()
    // The first write has not finished: no second request yet.
    expect(writes).toHaveLength(1)
    finishWrite()
    await reporter.settle()
    reporter.frameDone()
    expect(writes).toEqual([{framesDone: 1}, {framesDone: 3}])
    finishWrite()
    await reporter.settle()
    now += CHUNK_PROGRESS_INTERVAL_MS - 1
    reporter.frameDone()
    expect(writes).toHaveLength(2)
  })

  it('starts no write once closed, however late a frame is handed over', async () => {
    let now = 1_000_000
    const {writes, bucket, finishWrite} = recorder()
    const reporter = new ChunkProgressReporter(bucket, 'k', () => now)
    reporter.frameDone()
    const closed = reporter.close()
    finishWrite()
    await closed
    now += 10 * CHUNK_PROGRESS_INTERVAL_MS
    reporter.frameDone()
    expect(writes).toEqual([{framesDone: 1}])
  })

  it('a failed write does not fail the chunk', async () => {
    const reporter = new ChunkProgressReporter({putJson: () => Promise.reject(new Error('S3 is down'))}, 'k')
    reporter.frameDone()
    await expect(reporter.settle()).resolves.toBeUndefined()
  })
})
