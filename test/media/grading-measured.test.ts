import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {decode, ffmpeg} from './media-support.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * Every grading preset and every `adjust` field, rendered through the real pipeline and measured
 * on a colour chart (three greys and five colours) against the reference formulas users of
 * HTML-video tools rely on, written out here independently of src/lib/media/grading: a sign, an
 * order or a constant changed there turns this red.
 */

type Rgb = [number, number, number]
interface Adjust {
  exposure?: number
  shadows?: number
  highlights?: number
  blacks?: number
  whites?: number
  temperature?: number
  tint?: number
  contrast?: number
  vibrance?: number
  saturation?: number
}

const PRESETS: Record<string, {adjust: Adjust; vignette?: number}> = {
  neutral: {adjust: {}},
  'warm-daylight': {adjust: {exposure: 0.06, contrast: 0.07, highlights: -0.06, shadows: 0.08, temperature: 0.18, saturation: 0.08}},
  'clean-studio': {adjust: {contrast: 0.08, highlights: -0.08, shadows: 0.06, temperature: -0.08, tint: 0.03, saturation: 0.04}},
  'skin-soft': {adjust: {exposure: 0.04, contrast: -0.03, highlights: -0.12, shadows: 0.12, temperature: 0.08, tint: 0.02, saturation: 0.04}},
  'food-pop': {adjust: {exposure: 0.06, contrast: 0.1, shadows: 0.06, temperature: 0.14, vibrance: 0.1, saturation: 0.18}},
  'night-lift': {adjust: {exposure: 0.08, contrast: 0.08, highlights: -0.18, shadows: 0.2, blacks: -0.08, saturation: 0.04}, vignette: 0.12},
  'muted-editorial': {adjust: {exposure: -0.02, contrast: 0.08, highlights: -0.08, shadows: 0.06, blacks: -0.05, temperature: -0.03, saturation: -0.12}, vignette: 0.1},
  'vintage-wash': {
    adjust: {exposure: 0.03, contrast: -0.12, highlights: -0.1, shadows: 0.16, whites: -0.04, blacks: 0.08, temperature: 0.13, vibrance: -0.08, saturation: -0.08},
    vignette: 0.18,
  },
  'mono-clean': {adjust: {contrast: 0.12, highlights: -0.04, shadows: 0.04, blacks: -0.08, saturation: -1}},
  'mono-fade': {adjust: {contrast: -0.04, highlights: -0.06, shadows: 0.1, blacks: 0.12, saturation: -1}, vignette: 0.08},
  'soft-boost': {adjust: {exposure: 0.06, contrast: -0.04, highlights: -0.14, shadows: 0.16, vibrance: 0.08, saturation: 0.1}},
  'bright-pop': {adjust: {exposure: 0.12, contrast: 0.12, whites: 0.08, blacks: -0.04, vibrance: 0.08, saturation: 0.14}},
  'deep-contrast': {adjust: {exposure: -0.03, contrast: 0.2, highlights: -0.08, shadows: -0.08, blacks: -0.12, saturation: 0.06}},
}

/** One grade per tile: every preset, then each adjust field pushed both ways, then intensity. */
const GRADES: Array<{name: string; attribute: string; adjust: Adjust; intensity: number; vignette: number}> = [
  ...Object.entries(PRESETS).map(([name, preset]) => ({name, attribute: name, adjust: preset.adjust, intensity: 1, vignette: preset.vignette ?? 0})),
  ...(
    [
      {exposure: 1},
      {exposure: -1},
      {shadows: 0.8},
      {shadows: -0.8},
      {highlights: 0.8},
      {highlights: -0.8},
      {blacks: 0.5},
      {blacks: -0.5},
      {whites: 0.5},
      {whites: -0.5},
      {temperature: 0.6},
      {temperature: -0.6},
      {tint: 0.6},
      {tint: -0.6},
      {contrast: 0.5},
      {contrast: -0.5},
      {vibrance: 0.8},
      {vibrance: -0.8},
      {saturation: 0.6},
      {saturation: -0.6},
    ] as Adjust[]
  ).map((adjust) => ({name: JSON.stringify(adjust), attribute: JSON.stringify({adjust}), adjust, intensity: 1, vignette: 0})),
  {name: 'temperature 1 at intensity 0.4', attribute: JSON.stringify({adjust: {temperature: 1}, intensity: 0.4}), adjust: {temperature: 1}, intensity: 0.4, vignette: 0},
]

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))
const luma = ([r, g, b]: Rgb) => 0.2126 * r + 0.7152 * g + 0.0722 * b
const smoothstep = (edge0: number, edge1: number, x: number) => {
  const t = clamp01((x - edge0) / (edge1 - edge0))
  return t * t * (3 - 2 * t)
}

/** The reference grade (display-encoded RGB 0-1), step by step in the documented order. */
function reference(source: Rgb, adjust: Adjust, intensity: number): Rgb {
  const a = {exposure: 0, shadows: 0, highlights: 0, blacks: 0, whites: 0, temperature: 0, tint: 0, contrast: 0, vibrance: 0, saturation: 0, ...adjust}
  let c = source.map((v) => v * Math.pow(2, a.exposure)) as Rgb
  const y = luma(c)
  c = c.map((v) => v + a.shadows * 0.35 * (1 - smoothstep(0, 0.65, y)) + a.highlights * 0.35 * smoothstep(0.35, 1, y)) as Rgb
  const bp = a.blacks * 0.18
  const wp = 1 - a.whites * 0.18
  c = c.map((v) => (v - bp) / (wp - bp)) as Rgb
  c = [c[0] + a.temperature * 0.08 + a.tint * 0.04, c[1] - a.tint * 0.08, c[2] - a.temperature * 0.08 + a.tint * 0.04]
  c = c.map((v) => clamp01((v - 0.5) * (1 + a.contrast) + 0.5)) as Rgb
  if (a.vibrance !== 0) {
    const amount = a.vibrance * (1 - (Math.max(...c) - Math.min(...c)))
    const l = luma(c)
    c = c.map((v) => clamp01(l + (v - l) * (1 + amount))) as Rgb
  }
  const l = luma(c)
  c = c.map((v) => clamp01(l + (v - l) * (1 + a.saturation))) as Rgb
  return source.map((v, i) => clamp01(v + (c[i] - v) * intensity)) as Rgb
}

// The chart: 4 x 2 patches of 10 x 10 px. Greys 50 %, 25 %, 75 %, then red, green, blue, skin, a muted brown.
const PATCHES = ['808080', '404040', 'c0c0c0', 'c83c32', '3caa50', '3250be', 'd2a082', '786e5f']
const PATCH = 10
const TILE_W = PATCH * 4
const TILE_H = PATCH * 2
const WIDTH = 320
const HEIGHT = 180
const COLUMNS = WIDTH / TILE_W

function tileOrigin(index: number): {x: number; y: number} {
  return {x: (index % COLUMNS) * TILE_W, y: Math.floor(index / COLUMNS) * TILE_H}
}

/** Share of its value a pixel keeps under ffmpeg's `vignette` (forward mode, centred, aspect 1) of `strength`. */
function vignetteFactor(strength: number, x: number, y: number): number {
  if (strength === 0) return 1
  const angle = Math.acos(Math.pow(1 - strength, 0.25))
  const dnorm = Math.hypot(Math.trunc(x - TILE_W / 2), Math.trunc(y - TILE_H / 2)) / Math.hypot(TILE_W / 2, TILE_H / 2)
  return Math.pow(Math.cos(angle * dnorm), 4)
}

/** Mean colour (0-255) of the 4 x 4 block at the centre of patch `patch` of tile `tile`, and the mean vignette factor there. */
function sample(frame: Buffer, tile: number, patch: number, vignette = 0): {rgb: Rgb; factor: number} {
  const origin = tileOrigin(tile)
  const px = (patch % 4) * PATCH + 3
  const py = Math.floor(patch / 4) * PATCH + 3
  const sum: Rgb = [0, 0, 0]
  let factor = 0
  for (let y = py; y < py + 4; y++) {
    for (let x = px; x < px + 4; x++) {
      const at = ((origin.y + y) * WIDTH + origin.x + x) * 3
      for (let c = 0; c < 3; c++) sum[c] += frame[at + c]
      factor += vignetteFactor(vignette, x, y)
    }
  }
  return {rgb: sum.map((v) => v / 16) as Rgb, factor: factor / 16}
}

describe('colour grading, measured in a render', PROCESSES, () => {
  let dir: string
  let frame: Buffer
  let restoreEnv: (() => void) | undefined

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-grading-measured-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(dir, 'cache')})
    // An RGB-exact source (PNG frames in a mov) so that only the grade changes the colours.
    const inputs = PATCHES.flatMap((hex) => ['-f', 'lavfi', '-i', `color=c=0x${hex}:size=${PATCH}x${PATCH}:rate=10:duration=0.2`])
    const filter = '[0][1][2][3]hstack=inputs=4[top];[4][5][6][7]hstack=inputs=4[bottom];[top][bottom]vstack'
    await ffmpeg([...inputs, '-filter_complex', filter, '-c:v', 'png', '-pix_fmt', 'rgb24', join(dir, 'chart.mov')])
    const tiles = [{attribute: undefined as string | undefined}, ...GRADES]
      .map((grade, index) => {
        const {x, y} = tileOrigin(index)
        const grading = grade.attribute === undefined ? '' : ` data-color-grading='${grade.attribute}'`
        return `<video src="chart.mov" data-start="0" style="left: ${x}px; top: ${y}px"${grading}></video>`
      })
      .join('\n    ')
    await writeFile(
      join(dir, 'chart.html'),
      `<!doctype html>
<html>
<head><style>html, body { margin: 0; } video { position: absolute; width: ${TILE_W}px; height: ${TILE_H}px; }</style></head>
<body>
  <div data-composition-id="chart" data-width="${WIDTH}" data-height="${HEIGHT}" data-duration="0.1" style="position: relative; width: ${WIDTH}px; height: ${HEIGHT}px; background: #000">
    ${tiles}
  </div>
</body>
</html>`,
    )
    const output = join(dir, 'frames')
    await renderComposition({
      composition: join(dir, 'chart.html'),
      options: resolveRenderOptions({format: 'png-sequence', fps: 10, workers: 1, videoFrameFormat: 'png', output}),
    })
    frame = await decode(['-i', join(output, 'frame_000000.png'), '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-'])
    expect(frame.length).toBe(WIDTH * HEIGHT * 3)
    // One frame extraction per graded tile: slow on a loaded machine.
  }, 300_000)

  afterAll(async () => {
    restoreEnv?.()
    await rm(dir, {recursive: true, force: true})
  })

  const source = (patch: number) => sample(frame, 0, patch).rgb

  it('shows the ungraded chart as it was encoded', () => {
    for (const [patch, hex] of PATCHES.entries()) {
      const expected = [0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16))
      source(patch).forEach((value, c) => expect(Math.abs(value - expected[c]), `patch ${hex}`).toBeLessThanOrEqual(2))
    }
  })

  it.each(GRADES.map((grade, index) => [grade.name, index + 1] as const))('%s: every patch within 3 levels of the reference grade', (_name, tile) => {
    const grade = GRADES[tile - 1]
    for (let patch = 0; patch < PATCHES.length; patch++) {
      const input = source(patch).map((v) => v / 255) as Rgb
      const {rgb, factor} = sample(frame, tile, patch, grade.vignette)
      const expected = reference(input, grade.adjust, grade.intensity).map((v) => v * 255 * factor)
      rgb.forEach((value, c) => expect(Math.abs(value - expected[c]), `patch ${PATCHES[patch]} channel ${'rgb'[c]}: ${value.toFixed(1)} vs ${expected[c].toFixed(1)}`).toBeLessThanOrEqual(3))
    }
  })

  /** Change of a channel on a grey patch (0: 50 %, 1: 25 %, 2: 75 %), in levels. */
  const greyShift = (name: string, channel: number, patch = 0) =>
    sample(frame, GRADES.findIndex((grade) => grade.name === name) + 1, patch).rgb[channel] - source(patch)[channel]

  it('moves each adjust field in its documented direction on neutral grey', () => {
    expect(greyShift('{"exposure":1}', 1)).toBeGreaterThan(100)
    expect(greyShift('{"exposure":-1}', 1)).toBeLessThan(-55)
    expect(greyShift('{"temperature":0.6}', 0)).toBeGreaterThan(10)
    expect(greyShift('{"temperature":0.6}', 2)).toBeLessThan(-10)
    expect(greyShift('{"temperature":-0.6}', 0)).toBeLessThan(-10)
    expect(greyShift('{"temperature":-0.6}', 2)).toBeGreaterThan(10)
    expect(greyShift('{"tint":0.6}', 1)).toBeLessThan(-10)
    expect(greyShift('{"tint":-0.6}', 1)).toBeGreaterThan(10)
    // Shadows act on the dark grey, highlights on the light one.
    expect(greyShift('{"shadows":0.8}', 1, 1)).toBeGreaterThan(40)
    expect(greyShift('{"shadows":-0.8}', 1, 1)).toBeLessThan(-40)
    expect(greyShift('{"highlights":0.8}', 1, 2)).toBeGreaterThan(40)
    expect(greyShift('{"highlights":-0.8}', 1, 2)).toBeLessThan(-40)
    expect(greyShift('{"blacks":0.5}', 1)).toBeLessThan(-8)
    expect(greyShift('{"whites":0.5}', 1)).toBeGreaterThan(8)
    expect(greyShift('{"contrast":0.5}', 1, 1)).toBeLessThan(-25)
    expect(greyShift('{"contrast":0.5}', 1, 2)).toBeGreaterThan(25)
    // Contrast, vibrance and saturation leave a mid grey alone: they act away from it.
    for (const name of ['{"contrast":0.5}', '{"vibrance":0.8}', '{"saturation":-0.6}']) expect(Math.abs(greyShift(name, 1))).toBeLessThanOrEqual(2)
  })

  it('warm presets warm a neutral grey and cool ones cool it; mono presets leave no colour', () => {
    const warmth = (name: string) => greyShift(name, 0) - greyShift(name, 2)
    for (const warm of ['warm-daylight', 'food-pop', 'vintage-wash', 'skin-soft']) expect(warmth(warm), warm).toBeGreaterThan(2)
    expect(warmth('clean-studio')).toBeLessThan(-2)
    for (const mono of ['mono-clean', 'mono-fade']) {
      const tile = GRADES.findIndex((grade) => grade.name === mono) + 1
      for (let patch = 3; patch < PATCHES.length; patch++) {
        const [r, g, b] = sample(frame, tile, patch).rgb
        expect(Math.max(r, g, b) - Math.min(r, g, b), `${mono} patch ${PATCHES[patch]}`).toBeLessThanOrEqual(2)
      }
    }
  })
})
