export interface GradingReference {
  /** Variable name referenced. */
  name: string
  /** Dotted path of the field in the grading object, e.g. `adjust.exposure`; `preset` for a bare attribute. */
  path: string
  /** True when the field's whole (trimmed) value is `$name` / `${name}`: the only form substituted. */
  whole: boolean
}

export type ParsedColorGrading =
  | {ok: true; grading: Record<string, unknown>; references: GradingReference[]}
  | {ok: false; error: string}

const NAME = '[A-Za-z0-9_.:-]+'
const WHOLE = new RegExp(`^\\$(?:(${NAME})|\\{(${NAME})\\})$`)
const ANY = new RegExp(`\\$(?:(${NAME})|\\{(${NAME})\\})`, 'g')
const PRESET_NAME = /^[A-Za-z0-9_-]+$/

/**
 * Reads `data-color-grading`: a JSON object, or a bare preset name (shorthand for
 * `{"preset": name}`), and lists the `$name` references in it.
 */
export function parseColorGrading(raw: string): ParsedColorGrading {
  const trimmed = raw.trim()
  let grading: Record<string, unknown>
  if (PRESET_NAME.test(trimmed) || WHOLE.test(trimmed)) {
    grading = {preset: trimmed}
  } else {
    let json: unknown
    try {
      json = JSON.parse(trimmed)
    } catch (error) {
      return {ok: false, error: `not valid JSON (${(error as Error).message}) and not a preset name`}
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      return {ok: false, error: 'must be a JSON object such as {"preset": "warm-daylight", "intensity": 0.8} or a bare preset name'}
    }
    grading = json as Record<string, unknown>
  }
  const references: GradingReference[] = []
  collect(grading, '', references)
  return {ok: true, grading, references}
}

function collect(value: unknown, path: string, into: GradingReference[]): void {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value.trim())
    if (whole) {
      into.push({name: whole[1] ?? whole[2], path, whole: true})
      return
    }
    for (const match of value.matchAll(ANY)) into.push({name: match[1] ?? match[2], path, whole: false})
    return
  }
  if (typeof value !== 'object' || value === null) return
  for (const [key, child] of Object.entries(value)) {
    collect(child, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key, into)
  }
}
