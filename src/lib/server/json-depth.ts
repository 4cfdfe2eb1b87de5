/** Deepest nesting of arrays and objects a request body may have: far beyond any real variables value. */
export const MAX_JSON_DEPTH = 64

/**
 * How deep the arrays and objects of a JSON text nest, counted without parsing it and stopping at
 * `stopAt`: a value nested 100,000 deep parses, but every recursive walk of it after (validation,
 * cloning, the page's own copy) overflows the stack.
 */
export function jsonDepthExceeds(text: string, stopAt: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === 0x5c) index++
      else if (code === 0x22) inString = false
    } else if (code === 0x22) inString = true
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > stopAt) return true
    } else if (code === 0x5d || code === 0x7d) depth--
  }
  return false
}
