import type {CheerioAPI} from 'cheerio'
import type {Element} from 'domhandler'
import type {Declaration, Root} from 'postcss'
import postcss from '../vendor/postcss.js'
import {mapGenericFamilies, parseFamilyList, parseFontShorthand, parseFontStyle, parseFontWeight, type FamilyName} from './css-font-values.js'
import type {FontStyle} from './font-catalog.js'
import {expandVariables, mapOutsideVariables, variableNames, type CustomProperties} from './css-variables.js'
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
  /** Each distinct family list the page writes, in order: the first family of it that can be drawn draws its text. */
  lists: FamilyName[][]
}

const GENERIC_WORD = /(?<![\w-])(sans-serif|serif|monospace|cursive|fantasy|math|fangsong)(?![\w-])/gi

/** A block of declarations: a rule of a `<style>` or a `style` attribute, with what to call it in messages. */
interface DeclarationBlock {
  where: string
  declarations: Declaration[]
  /** Called when a declaration of the block was rewritten (a style attribute is written back). */
  changed(): void
}

/**
 * Finds the fonts a compiled page asks for and makes it render offline: records the families of
 * every `font-family`/`font` declaration in `<style>` elements and `style` attributes (with the
 * weight and style declared beside them), following `var()` to the values its custom properties
 * are given anywhere in the page, the families of project `@font-face` rules, and the faces of
 * Google Fonts `<link>`s and `@import`s, which are removed. Generic keywords in those declarations
 * and in the custom properties they use are replaced by their bundled faces. Mutates `$`.
 */
export function discoverFonts($: CheerioAPI): FontDiscovery {
  const discovery: FontDiscovery = {requests: new Map(), projectFamilies: new Set(), generics: new Set(), googleUrls: [], googleFamilies: new Set(), unreadableUrls: [], lists: []}

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

  const blocks: DeclarationBlock[] = []
  const writeBacks: (() => void)[] = []
  $('style').each((_, element) => {
    let root: Root
    try {
      root = postcss.parse($(element).text())
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
      blocks.push({where: '<style>', declarations: rule.nodes.filter((node): node is Declaration => node.type === 'decl'), changed: () => {}})
    })
    writeBacks.push(() => $(element).text(root.toString()))
  })

  $('[style]').each((_, element) => {
    let root: Root
    try {
      root = postcss.parse(`x{${(element as Element).attribs.style}}`)
    } catch {
      return
    }
    const rule = root.first
    if (rule?.type !== 'rule') return
    let changed = false
    blocks.push({
      where: `the style attribute of ${describe(element as Element)}`,
      declarations: rule.nodes.filter((node): node is Declaration => node.type === 'decl'),
      changed: () => (changed = true),
    })
    writeBacks.push(() => {
      if (changed) (element as Element).attribs.style = rule.nodes.map(String).join('; ')
    })
  })

  // SVG text names its family in a presentation attribute.
  $('[font-family]').each((_, element) => {
    const attribs = (element as Element).attribs
    const declaration = postcss.decl({prop: 'font-family', value: attribs['font-family']})
    blocks.push({where: `the font-family attribute of ${describe(element as Element)}`, declarations: [declaration], changed: () => {}})
    writeBacks.push(() => {
      attribs['font-family'] = declaration.value
    })
  })

  const properties = customProperties(blocks)
  for (const block of blocks) collectDeclarations(discovery, block, properties)
  mapGenerics(blocks, properties)
  for (const writeBack of writeBacks) writeBack()

  // Scripts may set any family: generic keywords anywhere in the page count as used.
  for (const match of $.html().matchAll(GENERIC_WORD)) discovery.generics.add(match[1].toLowerCase())
  return discovery
}

function isFontProperty(property: string): property is 'font-family' | 'font' {
  const lower = property.toLowerCase()
  return lower === 'font-family' || lower === 'font'
}

/** Every value each custom property is given in the page, by name (custom property names are case-sensitive). */
function customProperties(blocks: readonly DeclarationBlock[]): Map<string, string[]> {
  const properties = new Map<string, string[]>()
  for (const block of blocks) {
    for (const declaration of block.declarations) {
      if (!declaration.prop.startsWith('--')) continue
      const values = properties.get(declaration.prop) ?? []
      const value = declaration.value.trim()
      if (!values.includes(value)) values.push(value)
      properties.set(declaration.prop, values)
    }
  }
  return properties
}

/**
 * Rewrites generic keywords to their bundled faces in font declarations (inside `var()` fallbacks
 * too) and in every custom property a font declaration refers to, directly or through another.
 */
function mapGenerics(blocks: readonly DeclarationBlock[], properties: ReadonlyMap<string, readonly string[]>): void {
  const fontVariables = new Set<string>()
  const pending = blocks.flatMap((block) => block.declarations.filter((declaration) => isFontProperty(declaration.prop)).flatMap((declaration) => variableNames(declaration.value)))
  while (pending.length > 0) {
    const name = pending.pop()!
    if (fontVariables.has(name)) continue
    fontVariables.add(name)
    for (const value of properties.get(name) ?? []) pending.push(...variableNames(value))
  }
  for (const block of blocks) {
    for (const declaration of block.declarations) {
      const property = declaration.prop.toLowerCase()
      const mode = isFontProperty(property) ? property : fontVariables.has(declaration.prop) ? undefined : null
      if (mode === null) continue
      const mapped = mapOutsideVariables(declaration.value, (text) => mapGenericFamilies(text, mode ?? (parseFontShorthand(text) ? 'font' : 'font-family')))
      if (mapped === declaration.value) continue
      declaration.value = mapped
      block.changed()
    }
  }
}

function collectDeclarations(discovery: FontDiscovery, block: DeclarationBlock, properties: CustomProperties): void {
  const read = (property: string): string[] => {
    let value: string | undefined
    for (const declaration of block.declarations) if (declaration.prop.toLowerCase() === property) value = declaration.value
    return value === undefined ? [] : expandVariables(value, properties)
  }
  const familyValues = read('font-family')
  const shorthands = read('font').flatMap((value) => parseFontShorthand(value) ?? [])
  const lists = familyValues.length > 0 ? familyValues : shorthands.map((shorthand) => shorthand.families)
  const weight = [...read('font-weight'), ...shorthands.map((shorthand) => shorthand.weight)].map(parseFontWeight).find((value) => value !== undefined) ?? 400
  const style = [...read('font-style'), ...shorthands.map((shorthand) => shorthand.style)].map(parseFontStyle).find((value) => value !== undefined) ?? 'normal'
  for (const list of lists) addList(discovery, parseFamilyList(list), {weight, style}, block.where)
}

/** Lists kept per page: enough for any real page, bounded for hostile ones. */
const MAX_LISTS = 1000
const listKeys = new WeakMap<FontDiscovery, Set<string>>()

function addList(discovery: FontDiscovery, families: FamilyName[], face: Omit<FaceRequest, 'family'>, where: string): void {
  families.forEach((family, index) => addFamily(discovery, family, face, where, index === 0))
  const keys = listKeys.get(discovery) ?? new Set<string>()
  listKeys.set(discovery, keys)
  const key = families.map((family) => `${family.keyword ? '' : '"'}${family.name.toLowerCase()}`).join(',')
  if (families.length === 0 || keys.has(key) || keys.size >= MAX_LISTS) return
  keys.add(key)
  discovery.lists.push(families)
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
