import {describe, expect, it} from 'vitest'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {RenderQueue} from '../../src/lib/server/render-queue.js'

/** A runner whose jobs finish when the test says so (or fail when aborted). */
function controlledRunner() {
  const started: string[] = []
  const finishers = new Map<string, () => void>()
  const run = (job: string, signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      started.push(job)
      finishers.set(job, () => resolve(`${job} done`))
      signal.addEventListener('abort', () => setTimeout(() => reject(signal.reason), 5))
    })
  return {started, run, finish: (job: string) => finishers.get(job)!()}
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('RenderQueue', () => {
  it('starts at most maxConcurrentRenders jobs, queues the rest in order and tells each its position', async () => {
    const runner = controlledRunner()
    const queue = new RenderQueue({maxConcurrentRenders: 2, run: runner.run})
    const positions: Record<string, number[]> = {}
    const submit = (id: string) =>
      queue.submit(id, id, {onQueued: (position) => (positions[id] ??= []).push(position)})
    const results = ['a', 'b', 'c', 'd', 'e'].map(submit)
    await tick()
    expect(runner.started).toEqual(['a', 'b'])
    expect(queue.status()).toEqual({maxConcurrentRenders: 2, activeRenders: 2, queuedRenders: 3})
    expect(positions).toEqual({c: [1], d: [2], e: [3]})

    runner.finish('b')
    await expect(results[1]).resolves.toBe('b done')
    await tick()
    expect(runner.started).toEqual(['a', 'b', 'c'])
    expect(positions).toEqual({c: [1], d: [2, 1], e: [3, 2]})
    expect(queue.status()).toMatchObject({activeRenders: 2, queuedRenders: 2})

    for (const id of ['a', 'c', 'd', 'e']) {
      runner.finish(id)
      await tick()
    }
    await Promise.all(results)
    expect(runner.started).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(queue.status()).toMatchObject({activeRenders: 0, queuedRenders: 0})
  })

  it('cancelling a waiting entry rejects it and moves the ones behind it up', async () => {
    const runner = controlledRunner()
    const queue = new RenderQueue({maxConcurrentRenders: 1, run: runner.run})
    const positions: number[] = []
    queue.submit('a', 'a')
    const b = queue.submit('b', 'b')
    queue.submit('c', 'c', {onQueued: (position) => positions.push(position)})
    expect(queue.cancel('b')).toBe(true)
    await expect(b).rejects.toSatisfy((error) => isEngineError(error, 'CANCELLED'))
    expect(positions).toEqual([2, 1])
    expect(queue.status()).toMatchObject({activeRenders: 1, queuedRenders: 1})
    runner.finish('a')
    await tick()
    expect(runner.started).toEqual(['a', 'c'])
  })

  it('cancelling a running entry aborts it and frees the slot only once the runner has stopped', async () => {
    const runner = controlledRunner()
    const queue = new RenderQueue({maxConcurrentRenders: 1, run: runner.run})
    const a = queue.submit('a', 'a')
    queue.submit('b', 'b')
    await tick()
    expect(queue.cancel('a')).toBe(true)
    await tick()
    // The runner takes a moment to stop: until then the slot stays taken.
    expect(queue.status()).toMatchObject({activeRenders: 1, queuedRenders: 1})
    expect(runner.started).toEqual(['a'])
    await expect(a).rejects.toSatisfy((error) => isEngineError(error, 'CANCELLED'))
    await tick()
    expect(runner.started).toEqual(['a', 'b'])
    expect(queue.cancel('nope')).toBe(false)
  })

  it('refuses a submission with QUEUE_FULL once maxQueue entries wait', () => {
    const runner = controlledRunner()
    const queue = new RenderQueue({maxConcurrentRenders: 1, maxQueue: 1, run: runner.run})
    queue.submit('a', 'a')
    queue.submit('b', 'b')
    expect(() => queue.submit('c', 'c')).toThrow(expect.objectContaining({code: 'QUEUE_FULL'}))
    expect(queue.status()).toMatchObject({activeRenders: 1, queuedRenders: 1})
  })

  it('a runner that throws frees its slot for the next entry', async () => {
    const queue = new RenderQueue<string, string>({
      maxConcurrentRenders: 1,
      run: async (job) => {
        if (job === 'bad') throw new Error('boom')
        return job
      },
    })
    const bad = queue.submit('bad', 'bad')
    const good = queue.submit('good', 'good')
    await expect(bad).rejects.toThrow('boom')
    await expect(good).resolves.toBe('good')
  })
})
