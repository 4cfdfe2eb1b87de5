/**
 * The scripts whose subsets engine serves: Latin and its extensions, Cyrillic, Greek and
 * Vietnamese, enough for accented names in batch rows. Other subsets of a package (Devanagari,
 * CJK…) are not injected, so their text falls back and is reported.
 */
export const SERVED_SUBSETS = ['latin', 'latin-ext', 'cyrillic', 'cyrillic-ext', 'greek', 'greek-ext', 'vietnamese'] as const

export type CodePointRange = readonly [first: number, last: number]

/** Parses a CSS `unicode-range` value (`U+0000-00FF,U+0131,U+4??`); undefined when malformed. */
export function parseUnicodeRange(value: string): CodePointRange[] | undefined {
  const ranges: CodePointRange[] = []
  for (const part of value.split(',')) {
    const match = /^\s*u\+([0-9a-f?]{1,6})(?:-([0-9a-f]{1,6}))?\s*$/i.exec(part)
    if (!match) return undefined
    const [, start, end] = match
    if (start.includes('?')) {
      if (end !== undefined) return undefined
      ranges.push([parseInt(start.replace(/\?/g, '0'), 16), parseInt(start.replace(/\?/g, 'f'), 16)])
    } else {
      ranges.push([parseInt(start, 16), parseInt(end ?? start, 16)])
    }
  }
  return ranges
}

export function rangesContain(ranges: readonly CodePointRange[], codePoint: number): boolean {
  return ranges.some(([first, last]) => codePoint >= first && codePoint <= last)
}

/** Characters that need no glyph of their own: whitespace, controls, joiners, variation selectors. */
export function needsGlyph(codePoint: number): boolean {
  if (codePoint <= 0x20 || (codePoint >= 0x7f && codePoint <= 0xa0)) return false
  if (codePoint >= 0x200b && codePoint <= 0x200f) return false
  if (codePoint >= 0xfe00 && codePoint <= 0xfe0f) return false
  return !/\s/u.test(String.fromCodePoint(codePoint))
}

/** The distinct characters of `text` that no range covers, in order of appearance. */
export function uncoveredCharacters(text: string, ranges: readonly CodePointRange[]): string[] {
  const missing = new Set<string>()
  for (const character of text) {
    const codePoint = character.codePointAt(0)!
    if (needsGlyph(codePoint) && !rangesContain(ranges, codePoint)) missing.add(character)
  }
  return [...missing]
}
