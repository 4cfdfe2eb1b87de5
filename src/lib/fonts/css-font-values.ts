import {GENERIC_FAMILY_FACES, isGenericFamily, isSystemFamilyKeyword} from './generic-families.js'

/** One entry of a `font-family` list: a name, and whether it was written as a bare keyword. */
export interface FamilyName {
  name: string
  /** Unquoted single identifier: only then is `serif` the generic family rather than a font named "serif". */
  keyword: boolean
}

const CSS_WIDE = new Set(['inherit', 'initial', 'unset', 'revert', 'revert-layer'])

/** Splits a CSS value on top-level commas, leaving quoted strings and parentheses whole. */
function splitTopLevel(value: string, separator: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quote = ''
  let current = ''
  for (let index = 0; index < value.length; index++) {
    const character = value[index]
    if (quote) {
      if (character === '\\') {
        current += character + (value[index + 1] ?? '')
        index++
        continue
      }
      if (character === quote) quote = ''
    } else if (character === '"' || character === "'") quote = character
    else if (character === '(') depth++
    else if (character === ')') depth = Math.max(0, depth - 1)
    else if (character === separator && depth === 0) {
      parts.push(current)
      current = ''
      continue
    }
    current += character
  }
  parts.push(current)
  return parts
}

function unescapeCss(text: string): string {
  return text.replace(/\\([0-9a-f]{1,6}\s?|.)/gi, (_, escaped: string) =>
    /^[0-9a-f]/i.test(escaped) && escaped.trim().length > 0 && /^[0-9a-f]+\s?$/i.test(escaped)
      ? String.fromCodePoint(parseInt(escaped.trim(), 16))
      : escaped,
  )
}

/** Parses a `font-family` value; `var()` entries and CSS-wide keywords are skipped (nothing static to resolve). */
export function parseFamilyList(value: string): FamilyName[] {
  const families: FamilyName[] = []
  for (const raw of splitTopLevel(value.replace(/!important\s*$/i, ''), ',')) {
    const part = raw.trim()
    if (part === '' || /\(/.test(part)) continue
    const quoted = /^(['"])(.*)\1$/s.exec(part)
    if (quoted) {
      families.push({name: unescapeCss(quoted[2]).trim(), keyword: false})
      continue
    }
    const name = unescapeCss(part.replace(/\s+/g, ' '))
    if (CSS_WIDE.has(name.toLowerCase())) continue
    families.push({name, keyword: !name.includes(' ')})
  }
  return families.filter((family) => family.name !== '')
}

const FONT_SIZE =
  /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:px|pt|pc|em|rem|ex|ch|lh|rlh|vw|vh|vmin|vmax|vi|vb|cm|mm|q|in|%)|0|xx-small|x-small|small|medium|large|x-large|xx-large|xxx-large|smaller|larger|(?:calc|clamp|min|max|var)\(.*\))(?:\/.*)?$/i

export interface FontShorthand {
  families: string
  weight?: string
  style?: string
}

/** Splits the `font` shorthand into its family list and its weight/style keywords. */
export function parseFontShorthand(value: string): FontShorthand | undefined {
  // Tokens before the family list: style, variant, weight, stretch, then size[/line-height].
  const tokens = splitTopLevel(value.trim().replace(/\s*\/\s*/g, '/'), ' ').filter((token) => token !== '')
  const sizeIndex = tokens.findIndex((token) => FONT_SIZE.test(token))
  if (sizeIndex < 0 || sizeIndex === tokens.length - 1) return undefined
  const before = tokens.slice(0, sizeIndex)
  return {
    families: tokens.slice(sizeIndex + 1).join(' '),
    weight: before.find((token) => /^(?:\d{1,4}|bold|bolder|lighter)$/i.test(token)),
    style: before.find((token) => /^(?:italic|oblique)$/i.test(token)),
  }
}

/** `700`, `bold` → 700; `normal` → 400; relative or unknown weights → undefined. */
export function parseFontWeight(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const trimmed = value.trim().toLowerCase()
  if (trimmed === 'bold') return 700
  if (trimmed === 'normal') return 400
  const number = Number(trimmed)
  return Number.isInteger(number) && number >= 1 && number <= 1000 ? number : undefined
}

export function parseFontStyle(value: string | undefined): 'normal' | 'italic' | undefined {
  if (value === undefined) return undefined
  const trimmed = value.trim().toLowerCase()
  if (trimmed.startsWith('italic') || trimmed.startsWith('oblique')) return 'italic'
  return trimmed === 'normal' ? 'normal' : undefined
}

function quoteFamily(name: string): string {
  return `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/**
 * Replaces the generic keywords of a `font-family` value (or of a `font` shorthand's family list)
 * with their bundled faces, quoted: `Inter, sans-serif` → `Inter, "Noto Sans"`; a system keyword
 * becomes the family name of its stand-in: `system-ui` → `"system-ui"`.
 */
export function mapGenericFamilies(value: string, property: 'font-family' | 'font'): string {
  const parts = splitTopLevel(value, ',')
  return parts
    .map((part, index) => {
      // In a shorthand the first part holds the size too: only its last token can be a family.
      const shorthandHead = property === 'font' && index === 0
      const match = (shorthandHead ? /^(.*?)([-\w]+)(\s*(?:!important)?\s*)$/is : /^(\s*)([-\w]+)(\s*(?:!important)?\s*)$/is).exec(part)
      if (!match || !(isGenericFamily(match[2]) || isSystemFamilyKeyword(match[2]))) return part
      if (shorthandHead && match[1].trim() !== '' && !/\s$/.test(match[1])) return part
      const face = isGenericFamily(match[2]) ? GENERIC_FAMILY_FACES[match[2].toLowerCase()] : match[2]
      return `${match[1]}${quoteFamily(face)}${match[3]}`
    })
    .join(',')
}
