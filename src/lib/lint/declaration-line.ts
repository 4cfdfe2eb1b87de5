import type {ParsedComposition} from '../compose/parse-composition.js'
import {attributeSource, lineOf} from '../compose/load-html.js'

/**
 * Line of the `index`-th declaration inside a (possibly multi-line) `data-composition-variables`
 * attribute, found by scanning the attribute as written; the attribute's line when unknown.
 */
export function declarationLine(parsed: ParsedComposition, index: number | undefined): number | undefined {
  const element = parsed.declarationsElement
  if (!element) return undefined
  const fallback = lineOf(element, 'data-composition-variables')
  const written = attributeSource(element, 'data-composition-variables', parsed.source)
  if (!written || index === undefined) return fallback
  const start = elementStarts(written.text)[index]
  if (start === undefined) return fallback
  return written.line + countNewlines(written.text.slice(0, start))
}

/** Offsets where each top-level array element begins in JSON text. */
function elementStarts(text: string): number[] {
  const starts: number[] = []
  let depth = 0
  let inString = false
  let expecting = false
  for (let i = text.indexOf('=') + 1; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
      continue
    }
    if (expecting && depth === 1 && !/\s/.test(char) && char !== ']') {
      starts.push(i)
      expecting = false
    }
    if (char === '"') {
      if (depth > 0) inString = true
    } else if (char === '[' || char === '{') {
      depth++
      if (depth === 1) expecting = true
    } else if (char === ']' || char === '}') {
      depth--
    } else if (char === ',' && depth === 1) {
      expecting = true
    }
  }
  return starts
}

function countNewlines(text: string): number {
  return text.split('\n').length - 1
}
