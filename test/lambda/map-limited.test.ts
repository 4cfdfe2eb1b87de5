import {describe, expect, it} from 'vitest'
import {mapLimited} from '../../packages/lambda/src/lib/lambda/map-limited.js'

describe('mapLimited', () => {
  it('keeps at most `limit` calls in flight and returns the results in input order', async () => {
    let inFlight = 0
    let most = 0
    const results = await mapLimited([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++inFlight)
      await new Promise((resolve) => setTimeout(resolve, n))
      inFlight--
      return n * 10
    })
    expect(results).toEqual([50, 10, 40, 20, 30])
    expect(most).toBe(2)
  })

  it('after a failure starts nothing new, and rejects only once the calls in flight have ended', async () => {
    const started: number[] = []
    const ended: number[] = []
    let release!: () => void
    const slow = new Promise<void>((resolve) => (release = resolve))
    const outcome = mapLimited([0, 1, 2, 3, 4], 2, async (n) => {
      started.push(n)
      if (n === 0) {
        await slow
        ended.push(n)
        return n
      }
      throw new Error(`item ${n} failed`)
    }).then(
      () => 'resolved',
      (error: Error) => `rejected after ${ended.length} ended: ${error.message}`,
    )
    // Item 1 fails at once while item 0 is still writing: nothing else starts, and the caller hears
    // of the failure only after item 0 is done.
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(started).toEqual([0, 1])
    release()
    expect(await outcome).toBe('rejected after 1 ended: item 1 failed')
    expect(started).toEqual([0, 1])
  })
})
