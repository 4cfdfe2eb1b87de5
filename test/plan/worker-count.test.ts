import {describe, expect, it} from 'vitest'
import {defaultWorkerCount, workerCount} from '../../src/lib/plan/worker-count.js'

describe('worker count', () => {
  it('follows the spec: cores minus 2, at least 1, at most 24, never more than the segments', () => {
    expect([2, 4, 8, 12, 64].map(defaultWorkerCount)).toEqual([1, 2, 6, 10, 24])
    expect(workerCount('auto', 16, 4)).toBe(4)
    expect(workerCount(3, 2, 10)).toBe(3)
  })
})
