/** Rules read per page when looking for a face's source: enough for any real page, bounded for hostile ones. */
const MAX_RULES = 2000

/**
 * The first `url()` source of the document's `@font-face` rule that `face` came from, resolved
 * against its stylesheet, or undefined when no readable rule matches. A rule matches when a face
 * made from its descriptors (parsed by the browser, as for the rule's own face) has the same
 * family, style, weight, stretch and unicode-range.
 */
export function fontFaceRuleSource(doc: Document, face: FontFace, FontFaceType: typeof FontFace): string | undefined {
  const wanted = faceKey(face)
  for (const rule of fontFaceRules(doc)) {
    const style = rule.style
    const descriptor = (name: string) => style.getPropertyValue(name) || undefined
    let probe: FontFace
    try {
      // A local() source is never loaded: the probe only parses the descriptors.
      probe = new FontFaceType(unquote(style.getPropertyValue('font-family')), 'local("engine-probe")', {
        style: descriptor('font-style'),
        weight: descriptor('font-weight'),
        stretch: descriptor('font-stretch'),
        unicodeRange: descriptor('unicode-range'),
      })
    } catch {
      continue
    }
    if (faceKey(probe) !== wanted) continue
    const source = /url\(\s*(['"]?)(.*?)\1\s*\)/.exec(style.getPropertyValue('src'))
    if (source) return new URL(source[2], rule.parentStyleSheet?.href ?? doc.baseURI).href
  }
  return undefined
}

function faceKey(face: FontFace): string {
  return [unquote(face.family).toLowerCase(), face.style, face.weight, face.stretch, face.unicodeRange].join('|')
}

function* fontFaceRules(doc: Document): Generator<CSSFontFaceRule> {
  let count = 0
  const pending: CSSRuleList[] = []
  const readable = (sheet: CSSStyleSheet | null): CSSRuleList | undefined => {
    try {
      return sheet?.cssRules
    } catch {
      return undefined
    }
  }
  for (const sheet of Array.from(doc.styleSheets)) {
    const rules = readable(sheet)
    if (rules) pending.push(rules)
  }
  while (pending.length > 0) {
    for (const rule of Array.from(pending.shift()!)) {
      if (++count > MAX_RULES) return
      if (rule instanceof CSSFontFaceRule) yield rule
      else if (rule instanceof CSSImportRule) {
        const rules = readable(rule.styleSheet)
        if (rules) pending.push(rules)
      } else if (rule instanceof CSSGroupingRule) pending.push(rule.cssRules)
    }
  }
}

export function unquote(family: string): string {
  const match = /^(['"])(.*)\1$/.exec(family.trim())
  return match ? match[2] : family.trim()
}
