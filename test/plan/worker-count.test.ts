import {describe, expect, it} from 'vitest'
import {MAX_WORKERS} from '../../src/lib/plan/render-options.js'
import {defaultWorkerCount, workerCount} from '../../src/lib/plan/worker-count.js'

describe('the worker count', () => {
  it('is cores minus 2 by default, at least 1, never above the hard ceiling (the spec table)', () => {
    const table: [cores: number, workers: number][] = [[1, 1], [2, 1], [3, 1], [4, 2], [8, 6], [12, 10], [26, 24], [64, 24]]
    for (const [cores, workers] of table) expect(defaultWorkerCount(cores), `${cores} cores`).toBe(workers)
    expect(MAX_WORKERS).toBe(24)
  })

  it('auto follows the default, an explicit count is kept, and neither exceeds the segments to share', () => {
    expect(workerCount('auto', 8, 100)).toBe(6)
    expect(workerCount('auto', 8, 4)).toBe(4)
    expect(workerCount(3, 2, 100)).toBe(3)
    expect(workerCount(5, 16, 2)).toBe(2)
    expect(workerCount('auto', 1, 0)).toBe(1)
  })
})
