import {describe, expect, it} from 'vitest'
import {gradeColor} from '../../src/lib/media/grading/grade-color.js'
import {NO_ADJUST} from '../../src/lib/media/grading/grading-presets.js'
import {resolveColorGrading} from '../../src/lib/media/grading/resolve-color-grading.js'
import {hdrTransferOf} from '../../src/lib/media/hdr/hdr-sources.js'
import type {MediaClip} from '../../src/lib/media/media-clip.js'
import {atempoChain, mixArgs} from '../../src/lib/media/mix-audio-track.js'

const clip = (overrides: Partial<MediaClip>): MediaClip => ({
  index: 0, tag: 'audio', element: '<audio>', path: 'a.wav', start: 0, end: 1, playbackStart: 0, rate: 1, volume: 1, audible: true, channels: 2, ...overrides,
})

describe('audio mix arguments', () => {
  it('places each clip at its start in whole samples, trims it to its clip and pads the track to the video length', () => {
    const args = mixArgs([clip({start: 0.5, end: 1.25, playbackStart: 2, volume: 0.5})], 2, 'out.wav')!
    const graph = args[args.indexOf('-filter_complex') + 1]
    expect(graph).toContain('atrim=start=2:duration=0.75')
    expect(graph).toContain('volume=0.5')
    expect(graph).toContain('adelay=delays=24000S:all=1')
    expect(graph).toContain('apad=whole_len=96000,atrim=end_sample=96000')
  })

  it('has nothing to mix without an audible clip inside the video', () => {
    expect(mixArgs([clip({audible: false})], 2, 'out.wav')).toBeNull()
    expect(mixArgs([clip({start: 3, end: 4})], 2, 'out.wav')).toBeNull()
  })

  it('chains atempo to reach rates outside 0.5-2', () => {
    expect(atempoChain(1)).toEqual([])
    expect(atempoChain(4)).toEqual(['atempo=2', 'atempo=2'])
    expect(atempoChain(0.25)).toEqual(['atempo=0.5', 'atempo=0.5'])
  })
})

describe('colour grading', () => {
  it('substitutes whole-value $name and ${name} from the composition variables; explicit keys beat the preset', () => {
    const grading = resolveColorGrading('{"preset": "${look}", "intensity": "$amount", "adjust": {"saturation": 0.5}}', {look: 'mono-clean', amount: 0.5}, '<video>')
    expect(grading).toMatchObject({preset: 'mono-clean', intensity: 0.5, adjust: {saturation: 0.5, contrast: 0.12}})
  })

  it('a bare preset name is a preset; enabled: false and neutral grade nothing', () => {
    expect(resolveColorGrading('warm-daylight', {}, '<video>')?.adjust.temperature).toBe(0.18)
    expect(resolveColorGrading('{"preset": "warm-daylight", "enabled": false}', {}, '<video>')).toBeNull()
    expect(resolveColorGrading('neutral', {}, '<video>')).toBeNull()
  })

  it('an undeclared variable and an unknown preset are errors that say what to use', () => {
    expect(() => resolveColorGrading('{"preset": "$nope"}', {}, '<video id="v">')).toThrow(/<video id="v">.*"nope"/)
    expect(() => resolveColorGrading('sepia', {}, '<video>')).toThrow(/unknown preset "sepia"; known presets: neutral, warm-daylight/)
  })

  it('holds adjust values to their ranges (exposure ±2 stops, the rest ±1): an out-of-range value grades like the end of its range', () => {
    const wild = resolveColorGrading('{"adjust": {"exposure": 9, "whites": 50, "contrast": "-7", "saturation": -3, "tint": 1.5}}', {}, '<video>')!
    expect(wild.adjust).toMatchObject({exposure: 2, whites: 1, contrast: -1, saturation: -1, tint: 1})
    const low = resolveColorGrading('{"adjust": {"exposure": -9, "blacks": -4}}', {}, '<video>')!
    expect(low.adjust).toMatchObject({exposure: -2, blacks: -1})
    // whites 50 unclamped would put the white point below black and turn the picture over.
    const grey: [number, number, number] = [0.5, 0.5, 0.5]
    const atEnd = resolveColorGrading('{"adjust": {"whites": 1}}', {}, '<video>')!
    const beyond = resolveColorGrading('{"adjust": {"whites": 50}}', {}, '<video>')!
    expect(gradeColor(grey, beyond.adjust, 1)).toEqual(gradeColor(grey, atEnd.adjust, 1))
    expect(gradeColor(grey, beyond.adjust, 1)[0]).toBeGreaterThan(0.5)
  })

  it('exposure doubles per stop, saturation -1 is grey, intensity blends with the source', () => {
    expect(gradeColor([0.25, 0.25, 0.25], {...NO_ADJUST, exposure: 1}, 1)[0]).toBeCloseTo(0.5)
    const grey = gradeColor([1, 0, 0], {...NO_ADJUST, saturation: -1}, 1)
    expect(grey[0]).toBeCloseTo(grey[1])
    expect(gradeColor([0.25, 0.25, 0.25], {...NO_ADJUST, exposure: 1}, 0.5)[0]).toBeCloseTo(0.375)
  })
})

describe('HDR sources', () => {
  const video = (colorTransfer?: string) => ({durationSeconds: 1, hasAudio: false, video: {width: 1, height: 1, fps: 30, codec: 'hevc', alpha: false, colorTransfer}})
  it('PQ wins over HLG; BT.709 or no transfer is SDR', () => {
    expect(hdrTransferOf([video('arib-std-b67'), video('smpte2084')])).toBe('pq')
    expect(hdrTransferOf([video('arib-std-b67'), video('bt709')])).toBe('hlg')
    expect(hdrTransferOf([video('bt709'), video()])).toBeUndefined()
  })
})
