import {parseColorGrading} from '../../compose/color-grading-references.js'
import {EngineError} from '../../errors/engine-error.js'
import {ADJUST_KEYS, GRADING_PRESETS, GRADING_VIGNETTES, NO_ADJUST, type GradingAdjust} from './grading-presets.js'

export interface ResolvedGrading {
  preset: string
  intensity: number
  adjust: GradingAdjust
  /** Corner darkening 0-1 (the preset's vignette scaled by intensity); 0 for none. */
  vignette: number
}

const WHOLE_REFERENCE = /^\$(?:([A-Za-z0-9_.:-]+)|\{([A-Za-z0-9_.:-]+)\})$/
const ADJUST_RANGE: Record<keyof GradingAdjust, number> = {...Object.fromEntries(ADJUST_KEYS.map((key) => [key, 1])), exposure: 2} as Record<
  keyof GradingAdjust,
  number
>

/**
 * Reads `data-color-grading` of one element into the grade to apply, or null for none
 * (`enabled: false`, or a grade that changes nothing). A field whose whole trimmed value is
 * `$name` / `${name}` takes the variable `name` of the element's composition; explicitly written
 * adjust keys override the preset's.
 */
export function resolveColorGrading(raw: string, variables: Record<string, unknown>, element: string): ResolvedGrading | null {
  const where = `data-color-grading on ${element}`
  const parsed = parseColorGrading(raw)
  if (!parsed.ok) throw new EngineError('COMPOSITION_INVALID', `${where} is ${parsed.error}`, {element, value: raw})
  const grading = substitute(parsed.grading, variables, where) as Record<string, unknown>
  if (grading.enabled === false) return null

  const presetName = grading.preset === undefined ? 'neutral' : String(grading.preset).trim()
  const preset = GRADING_PRESETS[presetName]
  if (!preset) {
    throw new EngineError(
      'COMPOSITION_INVALID',
      `${where}: unknown preset "${presetName}"; known presets: ${Object.keys(GRADING_PRESETS).join(', ')}`,
      {element, preset: presetName, known: Object.keys(GRADING_PRESETS)},
    )
  }
  if (grading.colorSpace !== undefined && grading.colorSpace !== 'rec709') {
    throw new EngineError('COMPOSITION_INVALID', `${where}: colorSpace "${String(grading.colorSpace)}" is not supported; the only one is "rec709"`, {element})
  }
  const written = grading.adjust ?? {}
  if (typeof written !== 'object' || written === null || Array.isArray(written)) {
    throw new EngineError('COMPOSITION_INVALID', `${where}: adjust must be an object such as {"exposure": 0.5}`, {element})
  }
  const adjust = {...NO_ADJUST, ...preset}
  for (const [key, value] of Object.entries(written)) {
    if (!(ADJUST_KEYS as readonly string[]).includes(key)) {
      throw new EngineError('COMPOSITION_INVALID', `${where}: adjust.${key} is not an adjustment; use ${ADJUST_KEYS.join(', ')}`, {element})
    }
    const range = ADJUST_RANGE[key as keyof GradingAdjust]
    adjust[key as keyof GradingAdjust] = Math.min(range, Math.max(-range, toNumber(value, `${where}: adjust.${key}`)))
  }
  const intensity = grading.intensity === undefined ? 1 : Math.min(1, Math.max(0, toNumber(grading.intensity, `${where}: intensity`)))
  const vignette = (GRADING_VIGNETTES[presetName] ?? 0) * intensity
  if (intensity === 0 || (vignette === 0 && ADJUST_KEYS.every((key) => adjust[key] === 0))) return null
  return {preset: presetName, intensity, adjust, vignette}
}

function substitute(value: unknown, variables: Record<string, unknown>, where: string): unknown {
  if (typeof value === 'string') {
    const match = WHOLE_REFERENCE.exec(value.trim())
    if (!match) return value
    const name = match[1] ?? match[2]
    if (!Object.hasOwn(variables, name) || variables[name] === undefined) {
      throw new EngineError('COMPOSITION_INVALID', `${where}: "${value}" names the variable "${name}", which the composition does not declare`, {
        variable: name,
        declared: Object.keys(variables),
      })
    }
    return variables[name]
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, variables, where))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, substitute(child, variables, where)]))
  }
  return value
}

function toNumber(value: unknown, what: string): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof number !== 'number' || !Number.isFinite(number)) {
    throw new EngineError('COMPOSITION_INVALID', `${what} must be a number, got ${JSON.stringify(value)}`, {value})
  }
  return number
}
