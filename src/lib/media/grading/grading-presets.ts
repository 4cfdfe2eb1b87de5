/** The adjustments a grade applies, each 0 for "unchanged". Ranges: exposure -2..2 stops, the rest -1..1. */
export interface GradingAdjust {
  exposure: number
  shadows: number
  highlights: number
  blacks: number
  whites: number
  temperature: number
  tint: number
  contrast: number
  vibrance: number
  saturation: number
}

export const ADJUST_KEYS = ['exposure', 'shadows', 'highlights', 'blacks', 'whites', 'temperature', 'tint', 'contrast', 'vibrance', 'saturation'] as const

export const NO_ADJUST: GradingAdjust = {exposure: 0, shadows: 0, highlights: 0, blacks: 0, whites: 0, temperature: 0, tint: 0, contrast: 0, vibrance: 0, saturation: 0}

/** The presets users of HTML-video tools know, with the same names and values. */
export const GRADING_PRESETS: Readonly<Record<string, Partial<GradingAdjust>>> = {
  neutral: {},
  'warm-daylight': {exposure: 0.06, contrast: 0.07, highlights: -0.06, shadows: 0.08, temperature: 0.18, saturation: 0.08},
  'clean-studio': {contrast: 0.08, highlights: -0.08, shadows: 0.06, temperature: -0.08, tint: 0.03, saturation: 0.04},
  'skin-soft': {exposure: 0.04, contrast: -0.03, highlights: -0.12, shadows: 0.12, temperature: 0.08, tint: 0.02, saturation: 0.04},
  'food-pop': {exposure: 0.06, contrast: 0.1, shadows: 0.06, temperature: 0.14, vibrance: 0.1, saturation: 0.18},
  'night-lift': {exposure: 0.08, contrast: 0.08, highlights: -0.18, shadows: 0.2, blacks: -0.08, saturation: 0.04},
  'muted-editorial': {exposure: -0.02, contrast: 0.08, highlights: -0.08, shadows: 0.06, blacks: -0.05, temperature: -0.03, saturation: -0.12},
  'vintage-wash': {exposure: 0.03, contrast: -0.12, highlights: -0.1, shadows: 0.16, whites: -0.04, blacks: 0.08, temperature: 0.13, vibrance: -0.08, saturation: -0.08},
  'mono-clean': {contrast: 0.12, highlights: -0.04, shadows: 0.04, blacks: -0.08, saturation: -1},
  'mono-fade': {contrast: -0.04, highlights: -0.06, shadows: 0.1, blacks: 0.12, saturation: -1},
  'soft-boost': {exposure: 0.06, contrast: -0.04, highlights: -0.14, shadows: 0.16, vibrance: 0.08, saturation: 0.1},
  'bright-pop': {exposure: 0.12, contrast: 0.12, whites: 0.08, blacks: -0.04, vibrance: 0.08, saturation: 0.14},
  'deep-contrast': {exposure: -0.03, contrast: 0.2, highlights: -0.08, shadows: -0.08, blacks: -0.12, saturation: 0.06},
}

/**
 * Presets that also darken the corners: how much of the corners' value the vignette removes at
 * intensity 1 (see vignetteFilter). A vignette is spatial, so it follows the colour LUT as its own filter.
 */
export const GRADING_VIGNETTES: Readonly<Record<string, number>> = {
  'night-lift': 0.12,
  'muted-editorial': 0.1,
  'vintage-wash': 0.18,
  'mono-fade': 0.08,
}
