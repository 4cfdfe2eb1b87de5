/** Rules read per page when looking for a face's source: enough for any real page, bounded for hostile ones. */
const MAX_RULES = 2000

/**
 * Finds the source of a face of the document's `@font-face` rules: the first `url()` of the rule
 * it came from, resolved against its stylesheet, or undefined when no readable rule matches. A
 * rule matches when a face made from its descriptors (parsed by the browser, as for the rule's own
 * face) has the same family, style, weight, stretch and unicode-range. The rules are read once,
 * when this is called; the returned lookup serves every failed face of that moment.
 */
export function fontFaceRuleSources(doc: Document, FontFaceType: typeof FontFace): (face: FontFace) => string | undefined {
  const sources = new Map<string, string>()
  for (const rule of fontFaceRules(doc)) {
    const style = rule.style
    const source = /url\(\s*(['"]?)(.*?)\1\s*\)/.exec(style.getPropertyValue('src'))
    if (!source) continue
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
    const key = faceKey(probe)
    const base = rule.parentStyleSheet?.href ?? doc.baseURI
    // A URL that does not parse has no file to fetch; it must not stop the page becoming ready.
    if (!sources.has(key) && URL.canParse(source[2], base)) sources.set(key, new URL(source[2], base).href)
  }
  return (face) => sources.get(faceKey(face))
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
