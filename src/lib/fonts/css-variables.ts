/**
 * Custom properties as the fonts stage sees them: every value a `--name` is given anywhere in the
 * page (by name, whatever the selector), so that `font-family: var(--brand-font)` can be resolved
 * to the families it may name without computing the cascade.
 */
export type CustomProperties = ReadonlyMap<string, readonly string[]>

/** One `var(--name[, fallback])` in a value: where it is and what it holds. */
interface VarReference {
  start: number
  end: number
  name: string
  fallback?: string
}

/** Expansions of one value, at most: the cross product of many multiply defined variables is cut here. */
const MAX_EXPANSIONS = 32
const MAX_DEPTH = 8

/** The first `var()` in `value` with its name and fallback, parentheses and quotes respected; undefined without one. */
function firstVar(value: string): VarReference | undefined {
  const start = value.search(/\bvar\(/i)
  if (start < 0) return undefined
  const open = start + 4
  let depth = 1
  let quote = ''
  let comma = -1
  for (let index = open; index < value.length; index++) {
    const character = value[index]
    if (quote) {
      if (character === '\\') index++
      else if (character === quote) quote = ''
    } else if (character === '"' || character === "'") quote = character
    else if (character === '(') depth++
    else if (character === ',' && depth === 1 && comma < 0) comma = index
    else if (character === ')' && --depth === 0) {
      const name = value.slice(open, comma < 0 ? index : comma).trim()
      return {start, end: index + 1, name, ...(comma >= 0 && {fallback: value.slice(comma + 1, index).trim()})}
    }
  }
  return undefined
}

export function hasVariables(value: string): boolean {
  return firstVar(value) !== undefined
}

/** The custom property names `value` refers to, nested references and fallbacks included. */
export function variableNames(value: string): string[] {
  const names: string[] = []
  let rest = value
  for (let reference = firstVar(rest); reference; reference = firstVar(rest)) {
    names.push(reference.name)
    if (reference.fallback !== undefined) names.push(...variableNames(reference.fallback))
    rest = rest.slice(reference.end)
  }
  return names
}

/**
 * Every value `value` can take once its `var()`s are replaced by the values their properties are
 * given somewhere in the page, or by their fallbacks: `var(--f)` with `--f: "Inter", sans-serif`
 * gives `"Inter", sans-serif`. Bounded in count and depth; a reference cycle expands to nothing.
 */
export function expandVariables(value: string, properties: CustomProperties): string[] {
  const results = new Set<string>()
  const expand = (text: string, depth: number, seen: readonly string[]) => {
    if (results.size >= MAX_EXPANSIONS) return
    const reference = firstVar(text)
    if (!reference) {
      results.add(text)
      return
    }
    if (depth >= MAX_DEPTH) return
    const before = text.slice(0, reference.start)
    const after = text.slice(reference.end)
    const alternatives = seen.includes(reference.name) ? [] : [...(properties.get(reference.name) ?? [])]
    if (reference.fallback !== undefined) alternatives.push(reference.fallback)
    for (const alternative of alternatives) expand(before + alternative + after, depth + 1, [...seen, reference.name])
  }
  expand(value, 0, [])
  return [...results]
}

/**
 * Applies `map` to the fallbacks of the value's `var()`s (recursively) and then to the value
 * itself, whose `var()` parts it leaves alone; for rewriting families inside `var(--f, serif)`.
 */
export function mapOutsideVariables(value: string, map: (text: string) => string): string {
  let result = ''
  let rest = value
  for (let reference = firstVar(rest); reference; reference = firstVar(rest)) {
    const fallback = reference.fallback === undefined ? '' : `, ${mapOutsideVariables(reference.fallback, map)}`
    result += rest.slice(0, reference.start) + `var(${reference.name}${fallback})`
    rest = rest.slice(reference.end)
  }
  return map(result + rest)
}
