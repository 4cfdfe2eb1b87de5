/**
 * The ffmpeg filter that darkens the frame towards its corners by `strength` (0-1): the centre is
 * unchanged and the corners keep `1 - strength` of their value, so a preset's "vignette .18" at
 * intensity 1 leaves 82% at the corners. ffmpeg's `vignette` scales each pixel by
 * cos(angle * d / dmax)^4, d being the distance from the centre and dmax the corner's; solving
 * cos(angle)^4 = 1 - strength gives the angle. `eval=init` computes the map once, and its dither
 * is an ordered (position-based) pattern, so every run writes the same pixels.
 */
export function vignetteFilter(strength: number): string {
  const angle = Math.acos((1 - strength) ** 0.25)
  return `vignette=angle=${angle.toFixed(6)}:mode=forward:eval=init`
}
