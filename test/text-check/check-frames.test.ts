import {describe, expect, it} from 'vitest'
import {planTextCheckFrames} from '../../src/lib/runtime/text-check-frames.js'

const FPS_30 = {num: 30, den: 1}

describe('planTextCheckFrames', () => {
  it('looks at the first and last frame and once a second without clips', () => {
    expect(planTextCheckFrames([], FPS_30, {start: 0, end: 75})).toEqual([0, 30, 60, 74])
  })

  it("adds each clip's first, middle and last frame", () => {
    // 0.5 s to 1.5 s: frames 15 to 44 show it.
    expect(planTextCheckFrames([{start: 0.5, end: 1.5}], FPS_30, {start: 0, end: 60})).toEqual([0, 15, 29, 30, 44, 59])
  })

  it('runs a clip without an end to the last frame, and keeps to the rendered range', () => {
    expect(planTextCheckFrames([{start: 1, end: null}], FPS_30, {start: 20, end: 50})).toEqual([20, 30, 39, 49])
    expect(planTextCheckFrames([{start: 3, end: 4}], FPS_30, {start: 0, end: 60})).toEqual([0, 30, 59])
  })

  it('handles fractional rates and one-frame renders', () => {
    const ntsc = {num: 30000, den: 1001}
    // 1 s is frame 29.97: the first frame at or after it is 30; 2 s is 59.94: the last before it is
    // 59. Once a second is every 29 frames (at least once a second, never less often).
    expect(planTextCheckFrames([{start: 1, end: 2}], ntsc, {start: 0, end: 90})).toEqual([0, 29, 30, 44, 58, 59, 87, 89])
    expect(planTextCheckFrames([{start: 0, end: 1}], FPS_30, {start: 7, end: 8})).toEqual([7])
    expect(planTextCheckFrames([], FPS_30, {start: 5, end: 5})).toEqual([])
  })
})
