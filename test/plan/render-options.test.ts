import {describe, expect, it} from 'vitest'
import {parseRenderOptions} from '../../src/lib/plan/render-options.js'

describe('parseRenderOptions', () => {
  it('accepts valid options', () => {
    expect(parseRenderOptions({format: 'webm', crf: 20, workers: 'auto', gifLoop: 3})).toEqual({
      format: 'webm',
      crf: 20,
      workers: 'auto',
      gifLoop: 3,
    })
  })

  it('names the flag, the value and the rule', () => {
    expect(() => parseRenderOptions({crf: 60})).toThrow(/--crf: 60 is invalid/)
    expect(() => parseRenderOptions({workers: 25})).toThrow(/--workers: 25 is invalid/)
    expect(() => parseRenderOptions({gifLoop: 70000})).toThrow(/--gif-loop: 70000/)
    expect(() => parseRenderOptions({videoBitrate: 'fast'})).toThrow(/--video-bitrate: "fast" is invalid \(must be a size such as 8M or 2500k\)/)
    expect(() => parseRenderOptions({quality: 'ultra'})).toThrow(/--quality must be draft, standard or high, not "ultra"/)
  })

  it('takes --keyframe-interval in seconds from 0.1 to 60, naming the range', () => {
    for (const bad of [0, 0.05, 61, 'often', -2]) {
      expect(() => parseRenderOptions({keyframeInterval: bad})).toThrow(
        /--keyframe-interval: .* is invalid \(must be a number of seconds from 0\.1 to 60, such as 2 or 0\.5\)/,
      )
    }
    expect(parseRenderOptions({keyframeInterval: 0.5})).toEqual({keyframeInterval: 0.5})
  })

  it('takes the spec ranges up to their edges and not one past them', () => {
    const edges: [option: string, lowest: number, highest: number][] = [
      ['gifLoop', 0, 65535],
      ['crf', 0, 51],
      ['workers', 1, 24],
      ['maxConcurrentRenders', 1, 10],
    ]
    for (const [option, lowest, highest] of edges) {
      expect(parseRenderOptions({[option]: lowest}), option).toEqual({[option]: lowest})
      expect(parseRenderOptions({[option]: highest}), option).toEqual({[option]: highest})
      expect(() => parseRenderOptions({[option]: lowest - 1}), `${option} ${lowest - 1}`).toThrow(/is invalid/)
      expect(() => parseRenderOptions({[option]: highest + 1}), `${option} ${highest + 1}`).toThrow(/is invalid/)
    }
  })

  it('rejects --crf with --video-bitrate and --hdr with --sdr', () => {
    expect(() => parseRenderOptions({crf: 18, videoBitrate: '8M'})).toThrow(/--crf and --video-bitrate cannot be combined/)
    expect(() => parseRenderOptions({hdr: true, sdr: true})).toThrow(/--hdr and --sdr cannot be combined/)
  })

  it('rejects unknown keys by name', () => {
    expect(() => parseRenderOptions({speed: 2})).toThrow(/--speed: not a render option/)
  })
})
