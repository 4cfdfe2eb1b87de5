import type {CompiledFonts} from './prepare-fonts.js'
import {parseUnicodeRange, uncoveredCharacters, type CodePointRange} from './font-subsets.js'

/**
 * Characters every served face together covers, or undefined when the composition has its own
 * `@font-face` families (their coverage is only known in the page).
 */
export function servedCoverage(fonts: CompiledFonts): CodePointRange[] | undefined {
  if (fonts.families.some((family) => family.source === 'project')) return undefined
  return [...new Set(fonts.runtime.faces.map((face) => face.unicodeRange))].flatMap((range) => parseUnicodeRange(range) ?? [])
}

export interface RowTextFallback {
  row: number
  variable: string
  characters: string[]
}

/** String values of each row with characters no served font has: their text falls back whatever family draws it. */
export function rowTextFallbacks(rows: readonly {index: number; variables: Record<string, unknown>}[], coverage: readonly CodePointRange[] | undefined): RowTextFallback[] {
  if (!coverage) return []
  const found: RowTextFallback[] = []
  for (const row of rows) {
    for (const [variable, value] of Object.entries(row.variables)) {
      if (typeof value !== 'string') continue
      const characters = uncoveredCharacters(value, coverage)
      if (characters.length > 0) found.push({row: row.index, variable, characters: characters.slice(0, 10)})
    }
  }
  return found
}
