import type {CheerioAPI} from 'cheerio'
import type {Element} from 'domhandler'
import postcss, {type Root} from 'postcss'
import {mapGenericFamilies, parseFamilyList, parseFontShorthand, parseFontStyle, parseFontWeight, type FamilyName} from './css-font-values.js'
import type {FontStyle} from './font-catalog.js'
import {isGenericFamily} from './generic-families.js'
import {isGoogleFontsHost, isGoogleFontsStylesheet, parseGoogleFontsUrl, type FaceRequest} from './google-fonts-url.js'

/** Where a family was asked for, for messages: `<style>`, `style attribute of <h1 id="title">`, a Google Fonts URL. */
export interface FamilyRequest {
  family: string
  weights: Set<number>
  styles: Set<FontStyle>
  where: string
  /** Named first in at least one list: text in it is drawn with it or falls back (later entries are fallbacks already). */
  first: boolean
}

export interface FontDiscovery {
  /** Named families (not generic keywords), in order of first mention. */
  requests: Map<string, FamilyRequest>
  /** Families the composition declares with its own `@font-face` (lower-cased): left alone. */
  projectFamilies: Set<string>
  /** Generic keywords used anywhere (stylesheets, attributes, scripts), lower-cased. */
  generics: Set<string>
  /** Google Fonts stylesheets that were removed, and those that could not be read (removed too). */
  googleUrls: string[]
  /** Families (lower-cased) a Google Fonts stylesheet asks for: engine may download them once. */
  googleFamilies: Set<string>
  unreadableUrls: string[]
}

const GENERIC_WORD = /(?<![\w-])(sans-serif|serif|monospace|system-ui|ui-sans-serif|ui-serif|ui-monospace|ui-rounded|cursive|fantasy|math|fangsong)(?![\w-])/gi

/**
 * Finds the fonts a compiled page asks for and makes it render offline: records the families of
 * every `font-family`/`font` declaration in `<style>` elements and `style` attributes (with the
 * weight and style declared beside them), the families of project `@font-face` rules, and the
 * faces of Google Fonts `<link>`s and `@import`s, which are removed. Generic keywords in those
 * declarations are replaced by their bundled faces. Mutates `$`.
 */
export function discoverFonts($: CheerioAPI): FontDiscovery {
  const discovery: FontDiscovery = {requests: new Map(), projectFamilies: new Set(), generics: new Set(), googleUrls: [], googleFamilies: new Set(), unreadableUrls: []}

  $('link[href]').each((_, element) => {
    const href = element.attribs.href
    const rel = (element.attribs.rel ?? '').toLowerCase()
    if (/\bstylesheet\b/.test(rel) && isGoogleFontsStylesheet(href)) {
      addGoogleUrl(discovery, href)
      $(element).remove()
    } else if (/\b(?:preconnect|dns-prefetch|preload|prefetch|stylesheet)\b/.test(rel) && isGoogleFontsHost(href)) {
      $(element).remove()
    }
  })

  $('style').each((_, element) => {
    const css = $(element).text()
    let root: Root
    try {
      root = postcss.parse(css)
    } catch {
      return
    }
    root.walkAtRules((rule) => {
      const name = rule.name.toLowerCase()
      if (name === 'import') {
        const url = /^\s*(?:url\(\s*)?(['"]?)([^'")\s]+)\1/i.exec(rule.params)?.[2]
        if (url && (isGoogleFontsStylesheet(url) || isGoogleFontsHost(url))) {
          addGoogleUrl(discovery, url)
          rule.remove()
        }
      } else if (name === 'font-face') {
        rule.walkDecls(/^font-family$/i, (declaration) => {
          for (const family of parseFamilyList(declaration.value)) discovery.projectFamilies.add(family.name.toLowerCase())
        })
      }
    })
    root.walkRules((rule) => {
      collectDeclarations(discovery, '<style>', (property) => {
        let value: string | undefined
        rule.each((node) => {
          if (node.type === 'decl' && node.prop.toLowerCase() === property) value = node.value
        })
        return value
      })
      rule.each((node) => {
        if (node.type !== 'decl') return
        const property = node.prop.toLowerCase()
        if (property === 'font-family' || property === 'font') node.value = mapGenericFamilies(node.value, property)
      })
    })
    $(element).text(root.toString())
  })

  $('[style]').each((_, element) => {
    const style = (element as Element).attribs.style
    let root: Root
    try {
      root = postcss.parse(`x{${style}}`)
    } catch {
      return
    }
    const rule = root.first
    if (rule?.type !== 'rule') return
    const where = `the style attribute of ${describe(element as Element)}`
    collectDeclarations(discovery, where, (property) => {
      let value: string | undefined
      rule.walkDecls((declaration) => {
        if (declaration.prop.toLowerCase() === property) value = declaration.value
      })
      return value
    })
    let changed = false
    rule.walkDecls((declaration) => {
      const property = declaration.prop.toLowerCase()
      if (property !== 'font-family' && property !== 'font') return
      const mapped = mapGenericFamilies(declaration.value, property)
      if (mapped !== declaration.value) {
        declaration.value = mapped
        changed = true
      }
    })
    if (changed) (element as Element).attribs.style = rule.nodes.map(String).join('; ')
  })

  // Scripts may set any family: generic keywords anywhere in the page count as used.
  for (const match of $.html().matchAll(GENERIC_WORD)) discovery.generics.add(match[1].toLowerCase())
  return discovery
}

function collectDeclarations(discovery: FontDiscovery, where: string, read: (property: string) => string | undefined): void {
  const familyValue = read('font-family')
  const shorthand = read('font')
  const parsedShorthand = shorthand === undefined ? undefined : parseFontShorthand(shorthand)
  const families = familyValue !== undefined ? parseFamilyList(familyValue) : parsedShorthand ? parseFamilyList(parsedShorthand.families) : []
  if (families.length === 0) return
  const weight = parseFontWeight(read('font-weight') ?? parsedShorthand?.weight) ?? 400
  const style = parseFontStyle(read('font-style') ?? parsedShorthand?.style) ?? 'normal'
  families.forEach((family, index) => addFamily(discovery, family, {weight, style}, where, index === 0))
}

function addFamily(discovery: FontDiscovery, family: FamilyName, face: Omit<FaceRequest, 'family'>, where: string, first: boolean): void {
  if (family.keyword && isGenericFamily(family.name)) {
    discovery.generics.add(family.name.toLowerCase())
    return
  }
  const key = family.name.toLowerCase()
  let request = discovery.requests.get(key)
  if (!request) {
    request = {family: family.name, weights: new Set(), styles: new Set(), where, first}
    discovery.requests.set(key, request)
  }
  request.first ||= first
  request.weights.add(face.weight)
  request.styles.add(face.style)
}

function addGoogleUrl(discovery: FontDiscovery, url: string): void {
  const faces = isGoogleFontsStylesheet(url) ? parseGoogleFontsUrl(url) : undefined
  if (!faces) {
    discovery.unreadableUrls.push(url)
    return
  }
  discovery.googleUrls.push(url)
  for (const face of faces) {
    addFamily(discovery, {name: face.family, keyword: false}, face, `the Google Fonts URL ${url}`, true)
    discovery.googleFamilies.add(face.family.toLowerCase())
  }
}

function describe(element: Element): string {
  const id = element.attribs.id
  return id ? `<${element.name} id="${id}">` : `<${element.name}>`
}
