import type {GradingAdjust} from './grading-presets.js'

export type Rgb = [number, number, number]

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))
const luma = ([r, g, b]: Rgb) => 0.2126 * r + 0.7152 * g + 0.0722 * b
const mix = (a: number, b: number, t: number) => a + (b - a) * t

function smoothstep(edge0: number, edge1: number, x: number): number {
  const t = clamp01((x - edge0) / (edge1 - edge0))
  return t * t * (3 - 2 * t)
}

/**
 * One display-encoded RGB colour (0-1) through the grade, in the customary order: exposure,
 * shadows/highlights, blacks/whites, temperature/tint, contrast, vibrance, saturation; then blended
 * with the source by `intensity`. Pure, so a LUT sampled from it grades a whole video.
 */
export function gradeColor(source: Rgb, adjust: GradingAdjust, intensity: number): Rgb {
  let c: Rgb = source.map((channel) => channel * 2 ** adjust.exposure) as Rgb
  const y = luma(c)
  const lift = adjust.shadows * 0.35 * (1 - smoothstep(0, 0.65, y)) + adjust.highlights * 0.35 * smoothstep(0.35, 1, y)
  c = c.map((channel) => channel + lift) as Rgb
  const blackPoint = adjust.blacks * 0.18
  const whitePoint = 1 - adjust.whites * 0.18
  c = c.map((channel) => (channel - blackPoint) / (whitePoint - blackPoint)) as Rgb
  c = [
    c[0] + adjust.temperature * 0.08 + adjust.tint * 0.04,
    c[1] - adjust.tint * 0.08,
    c[2] - (adjust.temperature * 0.08 - adjust.tint * 0.04),
  ]
  c = c.map((channel) => clamp01((channel - 0.5) * (1 + adjust.contrast) + 0.5)) as Rgb
  if (adjust.vibrance !== 0) {
    // Vibrance saturates muted colours more than already vivid ones.
    const chroma = Math.max(...c) - Math.min(...c)
    const amount = adjust.vibrance * (1 - chroma)
    const l = luma(c)
    c = c.map((channel) => clamp01(mix(l, channel, 1 + amount))) as Rgb
  }
  const l = luma(c)
  c = c.map((channel) => clamp01(mix(l, channel, 1 + adjust.saturation))) as Rgb
  return source.map((channel, i) => clamp01(mix(channel, c[i], intensity))) as Rgb
}
