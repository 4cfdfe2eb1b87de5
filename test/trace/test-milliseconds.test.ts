import {afterEach, describe, expect, it} from 'vitest'
import {testMilliseconds} from '../../src/lib/trace/test-milliseconds.js'

const VARIABLE = 'ENGINE_TEST_EXAMPLE_MS'

describe('testMilliseconds: the suite shortens a duration, users get the product value', () => {
  afterEach(() => {
    delete process.env[VARIABLE]
  })

  it('is the fallback when the variable is unset, empty or not whole milliseconds', () => {
    expect(testMilliseconds(VARIABLE, 2000)).toBe(2000)
    for (const wanted of ['', '-5', '1.5', '20ms', ' 20', '0x10', '1e3']) {
      process.env[VARIABLE] = wanted
      expect(testMilliseconds(VARIABLE, 2000), wanted).toBe(2000)
    }
  })

  it('is the variable where it reaches the minimum: 0 only where a wait may be skipped, never a poll', () => {
    process.env[VARIABLE] = '250'
    expect(testMilliseconds(VARIABLE, 2000, 1)).toBe(250)
    process.env[VARIABLE] = '0'
    expect(testMilliseconds(VARIABLE, 3000)).toBe(0)
    expect(testMilliseconds(VARIABLE, 2000, 1)).toBe(2000)
  })
})
