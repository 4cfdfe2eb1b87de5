import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadConfig} from '../../src/lib/config/load-config.js'
import {clipsFrom} from '../../src/lib/media/clips-from.js'
import type {MediaClip} from '../../src/lib/media/media-clip.js'
import {parseFps} from '../../src/lib/plan/fps.js'
import {parseFrameSelection, renderedFrames, resolveFrameRange} from '../../src/lib/plan/frame-range.js'
import {parseRenderOptions} from '../../src/lib/plan/render-options.js'
import {gridSegments} from '../../src/lib/plan/segment-grid.js'
import {parseStreamBody} from '../../src/lib/server/request-schema.js'

const composition = {totalFrames: 60, fps: parseFps(30)}

describe('--frames syntax', () => {
  it('reads A-B (inclusive), A- (to the end) and N (one frame), as text or a number', () => {
    expect(parseFrameSelection('30-59')).toEqual({first: 30, last: 59})
    expect(parseFrameSelection(' 7-7 ')).toEqual({first: 7, last: 7})
    expect(parseFrameSelection('45-')).toEqual({first: 45})
    expect(parseFrameSelection('12')).toEqual({first: 12, last: 12})
    expect(parseFrameSelection(0)).toEqual({first: 0, last: 0})
  })

  it.each(['', 'x', '-5', '5--9', '1.5', '3-4-5', '0x10', '10 - 20'])('refuses %j, saying how to write one', (value) => {
    expect(parseFrameSelection(value)).toEqual({problem: expect.stringMatching(/A-B for frames A to B \(0-based, inclusive\), A- for A to the end, or N for one frame, such as 30-59/)})
  })

  it('refuses a range written high to low, showing it the right way round', () => {
    expect(parseFrameSelection('59-30')).toEqual({problem: 'frame 59 comes after frame 30; write the lower frame first: 30-59'})
    expect(parseFrameSelection(-1)).toHaveProperty('problem')
    expect(parseFrameSelection(2.5)).toHaveProperty('problem')
  })

  it('every door names the flag or key, the value and the fix', async () => {
    expect(() => parseRenderOptions({frames: '9-3'})).toThrow('--frames: "9-3" is invalid (frame 9 comes after frame 3; write the lower frame first: 3-9)')
    expect(() => parseRenderOptions({frames: 'ten'})).toThrow(/^--frames: "ten" is invalid \(write A-B/)
    expect(() => parseRenderOptions({frames: true})).toThrow(/^--frames: true is invalid \(must be a frame range such as 30-59, 30- or 30\)/)
    expect(() => parseStreamBody({composition: 'a.html', frames: '5-2'})).toThrow(/^body field "frames": "5-2" is invalid \(frame 5 comes after frame 2/)
    const dir = mkdtempSync(join(tmpdir(), 'engine-frames-config-'))
    writeFileSync(join(dir, 'package.json'), '{}')
    writeFileSync(join(dir, 'engine.config.json'), '{"frames": "1-x"}')
    await expect(loadConfig(dir)).rejects.toThrow(/engine\.config\.json: key "frames": "1-x" is invalid \(write A-B/)
    writeFileSync(join(dir, 'engine.config.json'), '{"frames": "10-"}')
    expect((await loadConfig(dir)).options).toEqual({frames: '10-'})
  })
})

describe('--frames against the composition', () => {
  it('gives the exclusive-end range of the output, or nothing when it is every frame', () => {
    expect(resolveFrameRange('30-59', composition)).toEqual({start: 30, end: 60})
    expect(resolveFrameRange('10-', composition)).toEqual({start: 10, end: 60})
    expect(resolveFrameRange(59, composition)).toEqual({start: 59, end: 60})
    expect(resolveFrameRange('0-59', composition)).toBeUndefined()
    expect(resolveFrameRange('0-', composition)).toBeUndefined()
    expect(resolveFrameRange(undefined, composition)).toBeUndefined()
  })

  it('refuses frames past the end, naming the last frame and the range to use instead', () => {
    expect(() => resolveFrameRange('30-60', composition)).toThrow(
      '--frames 30-60: frame 60 is past the end; the composition has 60 frames (0-59: 2.000 s at 30 fps), so end at 59 at most: --frames 30-59 (or 30- to the end)',
    )
    expect(() => resolveFrameRange('60-', composition)).toThrow('--frames 60-: frame 60 is past the end; the composition has 60 frames (0-59: 2.000 s at 30 fps), so start at 59 at most')
    expect(() => resolveFrameRange(75, composition)).toThrow(/--frames 75: frame 75 is past the end/)
  })

  it('is cut on the composition grid: whole segments inside the range are the full render\'s segments', () => {
    const range = resolveFrameRange('20-49', composition)!
    expect(gridSegments(range, 15)).toEqual([
      {start: 20, end: 30},
      {start: 30, end: 45},
      {start: 45, end: 50},
    ])
    expect(renderedFrames({totalFrames: 60})).toEqual({start: 0, end: 60})
    expect(renderedFrames({totalFrames: 60, frameRange: range})).toEqual(range)
  })
})

describe('the audio of a range', () => {
  const clip = (start: number, end: number): MediaClip => ({index: 0, tag: 'audio', element: '<audio>', path: 'a.wav', start, end, playbackStart: 0.5, rate: 2, volume: 1, audible: true, channels: 2})

  it('moves every clip earlier by the range start and drops the ones already over', () => {
    expect(clipsFrom([clip(0.25, 0.75), clip(0.5, 1.5), clip(1.25, 2)], 1)).toEqual([clip(-0.5, 0.5), clip(0.25, 1)])
    expect(clipsFrom([clip(0.2, 0.9)], 0)).toEqual([clip(0.2, 0.9)])
  })
})
