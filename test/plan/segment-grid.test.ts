import {describe, expect, it} from 'vitest'
import {parseFps} from '../../src/lib/plan/fps.js'
import {DEFAULT_KEYFRAME_INTERVAL_SECONDS, gridSegments, segmentFrames} from '../../src/lib/plan/segment-grid.js'

describe('the segment grid', () => {
  it('is at most four seconds of frames by default, rounded to whole frames', () => {
    expect(DEFAULT_KEYFRAME_INTERVAL_SECONDS).toBe(4)
    const long = 100_000
    expect(segmentFrames(parseFps(30), long)).toBe(120)
    expect(segmentFrames(parseFps(25), long)).toBe(100)
    expect(segmentFrames(parseFps('30000/1001'), long)).toBe(120)
    expect(segmentFrames(parseFps(240), long)).toBe(960)
  })

  it('is a quarter of a render under 16 s by default, to give 4 segments, but never under half a second', () => {
    // 16 s at 30 fps: four of 4 s; 12 s: four of 3 s (not three of 4 s, one worker of two idle a third of the time).
    expect(segmentFrames(parseFps(30), 480)).toBe(120)
    expect(segmentFrames(parseFps(30), 360)).toBe(90)
    // 8 s: four of 2 s; 6 s: four of 45 frames; 3 s: four of 23.
    expect(segmentFrames(parseFps(30), 240)).toBe(60)
    expect(segmentFrames(parseFps(30), 180)).toBe(45)
    expect(segmentFrames(parseFps(30), 90)).toBe(23)
    // 2 s: 0.5 s segments (4 of them); below, still 0.5 s.
    expect(segmentFrames(parseFps(30), 60)).toBe(15)
    expect(segmentFrames(parseFps(30), 30)).toBe(15)
    expect(segmentFrames(parseFps(1), 3)).toBe(1)
  })

  it('follows an explicit keyframe interval whatever the render length, at least one frame', () => {
    expect(segmentFrames(parseFps(30), 60, 0.25)).toBe(8)
    expect(segmentFrames(parseFps(30), 60, 2)).toBe(60)
    expect(segmentFrames(parseFps(30), 100_000, 4)).toBe(120)
    expect(segmentFrames(parseFps(1), 10, 0.1)).toBe(1)
  })

  it('cuts at multiples of the segment length from frame 0, the last segment shorter', () => {
    expect(gridSegments({start: 0, end: 130}, 60)).toEqual([
      {start: 0, end: 60},
      {start: 60, end: 120},
      {start: 120, end: 130},
    ])
    expect(gridSegments({start: 0, end: 60}, 60)).toEqual([{start: 0, end: 60}])
    expect(gridSegments({start: 0, end: 1}, 60)).toEqual([{start: 0, end: 1}])
  })

  it('cuts a sub-range on the same grid, so any split of the render holds the same segments', () => {
    expect(gridSegments({start: 45, end: 130}, 30)).toEqual([
      {start: 45, end: 60},
      {start: 60, end: 90},
      {start: 90, end: 120},
      {start: 120, end: 130},
    ])
    const whole = gridSegments({start: 0, end: 250}, 30)
    for (const cut of [30, 60, 240]) {
      expect([...gridSegments({start: 0, end: cut}, 30), ...gridSegments({start: cut, end: 250}, 30)]).toEqual(whole)
    }
  })
})
