import {describe, expect, it} from 'vitest'
import {frameCount, frameTime, parseFps} from '../../src/lib/plan/fps.js'

describe('parseFps', () => {
  it('accepts integers and rationals, reduced', () => {
    expect(parseFps(30)).toEqual({num: 30, den: 1})
    expect(parseFps('60')).toEqual({num: 60, den: 1})
    expect(parseFps('30000/1001')).toEqual({num: 30000, den: 1001})
    expect(parseFps('60/2')).toEqual({num: 30, den: 1})
  })

  it.each(['0', '241', 'abc', '30/0', '1/2', '-5', '29.97'])('rejects %s naming the flag and the range', (value) => {
    expect(() => parseFps(value)).toThrow(/--fps: .* 1 to 240/)
  })
})

describe('frame arithmetic', () => {
  it('counts frames for a duration, rounding a partial frame up', () => {
    expect(frameCount(2, {num: 30, den: 1})).toBe(60)
    expect(frameCount(1, {num: 30000, den: 1001})).toBe(30)
    expect(frameCount(0.5, {num: 25, den: 1})).toBe(13)
  })

  it('puts frame i at t = i / fps exactly', () => {
    expect(frameTime(45, {num: 30, den: 1})).toBe(1.5)
    expect(frameTime(30000, {num: 30000, den: 1001})).toBe(1001)
  })
})
