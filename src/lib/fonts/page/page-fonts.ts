import {parseFamilyList} from '../css-font-values.js'
import type {RuntimeFonts, ServedFontFace} from '../font-plan.js'
import {parseUnicodeRange, uncoveredCharacters, type CodePointRange} from '../font-subsets.js'
import {isGenericFamily, isSystemFamilyKeyword} from '../generic-families.js'
import {fontFaceRuleSources, unquote} from './font-face-rules.js'

/** A served face that did not load (corrupt or unreachable file). */
export interface FontFailureRecord {
  family: string
  weight: number
  style: string
  file: string
}

/** Text whose first family did not draw it. */
export interface FontFallbackRecord {
  family: string
  weight: string
  style: string
  /** `<h1 id="title">` */
  element: string
  excerpt: string
  /** `not-available`: no face of the family in the page; `missing-glyphs`: its faces lack characters of the text; `generic`: a generic family set where compile could not map it. */
  reason: 'not-available' | 'missing-glyphs' | 'generic'
  characters?: string[]
}

export interface PageFontReport {
  failed: FontFailureRecord[]
  fallbacks: FontFallbackRecord[]
  /** The families text is drawn with (the first of each element's list), at most MAX_DRAWN of them. */
  drawn: string[]
}

interface TextRun {
  element: Element
  text: string
  families: string
  weight: string
  style: string
}

/** Elements with text checked per page: enough for any video frame, bounded for hostile pages. */
const MAX_RUNS = 5000
const MAX_TEXT = 2000
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'TITLE'])
const MAX_DRAWN = 100

/**
 * The page side of the fonts stage: adds the faces the engine serves (before any page script),
 * loads those the page uses before the first frame, makes failed ones again from their bytes,
 * and finds text drawn with a fallback font.
 */
export class PageFonts {
  private readonly served = new Map<FontFace, ServedFontFace>()
  private samples = new TextScan()
  /** Faces already made again from their bytes: a second failure is the file's, and is reported. */
  private readonly remade = new Set<ServedFontFace>()
  /** Faces of the page's own @font-face rules already made again (they stay in the set, in error). */
  private readonly remadeRuleFaces = new WeakSet<FontFace>()
  // Taken before any page script runs, so that a page replacing them cannot change what is loaded.
  private readonly FontFace: typeof FontFace
  private readonly fetch: typeof fetch

  constructor(
    private readonly win: Window & typeof globalThis,
    private readonly config: RuntimeFonts | undefined,
  ) {
    this.FontFace = win.FontFace
    this.fetch = win.fetch.bind(win)
  }

  install(): void {
    for (const face of this.config?.faces ?? []) {
      const fontFace = new this.FontFace(face.family, `url("${face.url}") format("woff2")`, descriptors(face))
      this.win.document.fonts.add(fontFace)
      this.served.set(fontFace, face)
    }
  }

  /** Loads the faces the composition asked for and those its text uses now, for every character of that text. */
  async loadUsed(): Promise<void> {
    const fonts = this.win.document.fonts
    const loads: Promise<unknown>[] = []
    for (const face of this.config?.eager ?? []) loads.push(fonts.load(fontSpec(face.style, String(face.weight), quoteFamily(face.family))))
    for (const run of this.textRuns()) {
      const first = parseFamilyList(run.families)[0]
      if (first && this.facesOf(first.name).length > 0) loads.push(fonts.load(fontSpec(run.style, run.weight, quoteFamily(first.name)), run.text))
    }
    await Promise.allSettled(loads)
    await fonts.ready
    await this.remakeFailed()
  }

  /**
   * Makes every face that failed to load again from its file's bytes, fetched through the same
   * request policy, once per face: a served face is replaced, a face of the page's own @font-face
   * rule gets a twin added after it, which font matching prefers. Why: Chromium can fail all the
   * URL faces of a page at once although their requests were answered in full (measured with the
   * serverless build under CPU load: every face of the used families in error, while the same
   * bytes loaded as binary faces in that page), and a request that failed once heals the same way.
   * A binary face of the same file and descriptors draws the same glyphs.
   */
  async remakeFailed(): Promise<void> {
    const served = [...this.served].filter(([fontFace, face]) => fontFace.status === 'error' && !this.remade.has(face))
    const ruleFaces = Array.from(this.win.document.fonts).filter((face) => face.status === 'error' && !this.served.has(face) && !this.remadeRuleFaces.has(face))
    const sourceOf = ruleFaces.length > 0 ? fontFaceRuleSources(this.win.document, this.FontFace) : () => undefined
    await Promise.all([...served.map(([fontFace, face]) => this.remakeServed(fontFace, face)), ...ruleFaces.map((face) => this.remakeRuleFace(face, sourceOf(face)))])
  }

  private async remakeServed(failed: FontFace, face: ServedFontFace): Promise<void> {
    this.remade.add(face)
    const bytes = await this.bytesOf(face.url)
    if (!bytes) return
    const fontFace = new this.FontFace(face.family, bytes, descriptors(face))
    const fonts = this.win.document.fonts
    fonts.delete(failed)
    this.served.delete(failed)
    fonts.add(fontFace)
    this.served.set(fontFace, face)
    await fontFace.loaded.catch(() => undefined)
  }

  private async remakeRuleFace(failed: FontFace, url: string | undefined): Promise<void> {
    this.remadeRuleFaces.add(failed)
    const bytes = url === undefined ? undefined : await this.bytesOf(url)
    if (!bytes) return
    const {style, weight, stretch, unicodeRange, featureSettings, display} = failed
    const fontFace = new this.FontFace(unquote(failed.family), bytes, {style, weight, stretch, unicodeRange, featureSettings, display})
    this.win.document.fonts.add(fontFace)
    await fontFace.loaded.catch(() => undefined)
  }

  private async bytesOf(url: string): Promise<ArrayBuffer | undefined> {
    try {
      const response = await this.fetch(url)
      return response.ok ? await response.arrayBuffer() : undefined
    } catch {
      return undefined
    }
  }

  report(): PageFontReport {
    const failed: FontFailureRecord[] = []
    for (const [fontFace, face] of this.served) {
      if (fontFace.status === 'error') failed.push({family: face.family, weight: face.weight, style: face.style, file: face.file})
    }
    const scan = new TextScan()
    scan.add(this.textRuns(), (run) => this.fallbackOf(run))
    return {failed, ...scan.result()}
  }

  /**
   * Looks at the text the page shows now and keeps what it finds until `takeSamples`: families a
   * script set after the page was ready (a timeline callback, a timer) are checked this way.
   */
  sample(): void {
    this.samples.add(this.textRuns(), (run) => this.fallbackOf(run))
  }

  /** Fallbacks and drawn families seen by `sample` since the last call. */
  takeSamples(): PageFontReport {
    const taken = this.samples.result()
    this.samples = new TextScan()
    return {failed: [], ...taken}
  }

  private fallbackOf(run: TextRun): FontFallbackRecord | undefined {
    const first = parseFamilyList(run.families)[0]
    if (!first) return undefined
    const base = {family: first.name, weight: run.weight, style: run.style, element: describe(run.element), excerpt: excerpt(run.text)}
    if (first.keyword && (isGenericFamily(first.name) || isSystemFamilyKeyword(first.name))) return {...base, reason: 'generic'}
    const faces = this.facesOf(first.name).filter((face) => face.status === 'loaded')
    if (faces.length === 0) return {...base, reason: 'not-available'}
    const italic = run.style !== 'normal'
    const sameStyle = faces.filter((face) => (face.style !== 'normal') === italic)
    const ranges: CodePointRange[] = (sameStyle.length > 0 ? sameStyle : faces).flatMap((face) => parseUnicodeRange(face.unicodeRange) ?? [[0, 0x10ffff] as const])
    const characters = uncoveredCharacters(run.text, ranges)
    return characters.length > 0 ? {...base, reason: 'missing-glyphs', characters: characters.slice(0, 20)} : undefined
  }

  private facesOf(family: string): FontFace[] {
    const wanted = family.toLowerCase()
    return Array.from(this.win.document.fonts).filter((face) => unquote(face.family).toLowerCase() === wanted)
  }

  private textRuns(): TextRun[] {
    const doc = this.win.document
    const texts = new Map<Element, string>()
    const walker = doc.createTreeWalker(doc.documentElement, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node && texts.size < MAX_RUNS; node = walker.nextNode()) {
      const parent = node.parentElement
      const value = node.nodeValue ?? ''
      if (!parent || SKIPPED.has(parent.tagName) || value.trim() === '') continue
      const current = texts.get(parent) ?? ''
      if (current.length < MAX_TEXT) texts.set(parent, (current + value).slice(0, MAX_TEXT))
    }
    return [...texts].map(([element, text]) => {
      const style = this.win.getComputedStyle(element)
      return {element, text: text.trim(), families: style.fontFamily, weight: style.fontWeight, style: style.fontStyle}
    })
  }
}

/** Fallbacks (one per family, weight, style and reason) and drawn families of text runs, bounded. */
class TextScan {
  private readonly fallbacks = new Map<string, FontFallbackRecord>()
  private readonly drawn = new Set<string>()

  add(runs: readonly TextRun[], fallbackOf: (run: TextRun) => FontFallbackRecord | undefined): void {
    for (const run of runs) {
      const first = parseFamilyList(run.families)[0]
      if (first && this.drawn.size < MAX_DRAWN) this.drawn.add(first.name)
      const record = fallbackOf(run)
      const key = record && `${record.family.toLowerCase()}|${record.weight}|${record.style}|${record.reason}`
      if (record && key && !this.fallbacks.has(key)) this.fallbacks.set(key, record)
    }
  }

  result(): Omit<PageFontReport, 'failed'> {
    return {fallbacks: [...this.fallbacks.values()], drawn: [...this.drawn]}
  }
}

function descriptors(face: ServedFontFace): FontFaceDescriptors {
  return {weight: face.weightRange ?? String(face.weight), style: face.style, unicodeRange: face.unicodeRange, display: 'block'}
}

function fontSpec(style: string, weight: string, family: string): string {
  return `${style === 'normal' ? '' : 'italic '}${weight} 16px ${family}`
}

function quoteFamily(family: string): string {
  return `"${family.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

function describe(element: Element): string {
  const id = element.getAttribute('id')
  const className = element.getAttribute('class')?.trim().split(/\s+/)[0]
  const name = element.tagName.toLowerCase()
  return id ? `<${name} id="${id}">` : className ? `<${name} class="${className}">` : `<${name}>`
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat
}
