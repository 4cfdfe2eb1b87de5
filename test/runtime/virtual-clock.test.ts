import {describe, expect, it} from 'vitest'
import {VirtualClock} from '../../src/lib/runtime/page/virtual-clock.js'

/** The clock a page gets, outside a browser: what it fires and when is plain data here. */
function clock(): {clock: VirtualClock; errors: unknown[]} {
  const errors: unknown[] = []
  return {clock: new VirtualClock((error) => errors.push(error)), errors}
}

describe('the virtual clock fires timers as a browser orders them', () => {
  it('timers due at the same time fire in the order they were set, whatever their delays and kinds', () => {
    const {clock: c} = clock()
    const fired: string[] = []
    c.setTimer(() => fired.push('first'), 10, [], false)
    c.setTimer(() => fired.push('second'), 10, [], false)
    c.advanceTo(5)
    // Set later with a shorter delay, due at the same 10 ms: after the two set before it.
    c.setTimer(() => fired.push('third'), 5, [], false)
    c.setTimer(() => fired.push('interval'), 10, [], true)
    c.advanceTo(10)
    expect(fired).toEqual(['first', 'second', 'third'])
    c.setTimer(() => fired.push('set at 10 for 5'), 5, [], false)
    c.advanceTo(15)
    // Both due at 15: the interval was set (at 5 ms) before the timeout (at 10 ms).
    expect(fired).toEqual(['first', 'second', 'third', 'interval', 'set at 10 for 5'])
  })

  it('a chain of 0 ms timeouts runs at 0 ms for the first five levels, then 4 ms apart (HTML nesting clamp)', () => {
    const {clock: c} = clock()
    const times: number[] = []
    const step = () => {
      times.push(c.nowMs)
      if (times.length < 8) c.setTimer(step, 0, [], false)
    }
    c.setTimer(step, 0, [], false)
    c.advanceTo(100)
    expect(times).toEqual([0, 0, 0, 0, 0, 4, 8, 12])
  })

  it('a 0 ms interval ticks at 0 ms four more times after its first, then every 4 ms', () => {
    const {clock: c} = clock()
    const times: number[] = []
    const id = c.setTimer(() => {
      times.push(c.nowMs)
      if (times.length === 8) c.clearTimer(id)
    }, 0, [], true)
    c.advanceTo(100)
    expect(times).toEqual([0, 0, 0, 0, 0, 4, 8, 12])
  })

  it('passes arguments, runs string handlers, reports a throwing callback and goes on', () => {
    const {clock: c, errors} = clock()
    const seen: unknown[] = []
    c.setTimer((...args: unknown[]) => seen.push(args), 1, ['a', 2], false)
    c.setTimer(() => {
      throw new Error('boom')
    }, 2, [], false)
    c.setTimer(() => seen.push('after'), 3, [], false)
    c.advanceTo(3)
    expect(seen).toEqual([['a', 2], 'after'])
    expect(errors).toEqual([new Error('boom')])
    expect(c.nowMs).toBe(3)
  })
})
