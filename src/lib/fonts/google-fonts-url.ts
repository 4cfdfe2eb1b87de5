import type {FontStyle} from './font-catalog.js'

export interface FaceRequest {
  family: string
  weight: number
  style: FontStyle
}

const GOOGLE_FONTS_HOSTS = new Set(['fonts.googleapis.com', 'fonts.googleapis.cn'])

/** Hosts whose stylesheets and files a composition must not wait on (removed after parsing). */
export function isGoogleFontsHost(url: string): boolean {
  try {
    const host = new URL(url, 'https://invalid.invalid/').hostname
    return GOOGLE_FONTS_HOSTS.has(host) || host === 'fonts.gstatic.com'
  } catch {
    return false
  }
}

/** A stylesheet URL of the Google Fonts CSS API (`/css` or `/css2`). */
export function isGoogleFontsStylesheet(url: string): boolean {
  try {
    const parsed = new URL(url.trim().startsWith('//') ? `https:${url.trim()}` : url.trim())
    return GOOGLE_FONTS_HOSTS.has(parsed.hostname) && /^\/css2?\/?$/.test(parsed.pathname)
  } catch {
    return false
  }
}

/**
 * The faces a Google Fonts stylesheet URL asks for. css2: `family=Inter:wght@400;700` and
 * `family=JetBrains+Mono:ital,wght@0,400;1,400` (ranges `100..900` give every hundred); css (v1):
 * `family=Roboto:400,700italic|Open+Sans`. Undefined when the URL cannot be read.
 */
export function parseGoogleFontsUrl(url: string): FaceRequest[] | undefined {
  let parsed: URL
  try {
    parsed = new URL(url.trim().startsWith('//') ? `https:${url.trim()}` : url.trim())
  } catch {
    return undefined
  }
  const values = parsed.searchParams.getAll('family')
  if (values.length === 0) return undefined
  const v2 = /^\/css2\/?$/.test(parsed.pathname)
  const requests: FaceRequest[] = []
  for (const value of values) {
    const specs = v2 ? [value] : value.split('|')
    for (const spec of specs) {
      const faces = v2 ? parseCss2Family(spec) : parseCss1Family(spec)
      if (!faces) return undefined
      requests.push(...faces)
    }
  }
  return requests
}

function familyName(raw: string): string | undefined {
  const name = raw.replace(/\+/g, ' ').replace(/\s+/g, ' ').trim()
  return /^[\p{L}\p{N} '&.-]{1,100}$/u.test(name) ? name : undefined
}

function parseCss2Family(spec: string): FaceRequest[] | undefined {
  const [rawName, axisSpec] = splitOnce(spec, ':')
  const family = familyName(rawName)
  if (!family) return undefined
  if (axisSpec === undefined) return [{family, weight: 400, style: 'normal'}]
  const [axesText, tuplesText] = splitOnce(axisSpec, '@')
  if (tuplesText === undefined) return undefined
  const axes = axesText.split(',')
  const italIndex = axes.indexOf('ital')
  const wghtIndex = axes.indexOf('wght')
  if (axes.some((axis) => !/^[a-zA-Z]{4}$/.test(axis))) return undefined
  const faces: FaceRequest[] = []
  for (const tuple of tuplesText.split(';')) {
    const values = tuple.split(',')
    if (values.length !== axes.length) return undefined
    const style: FontStyle = italIndex >= 0 && values[italIndex] === '1' ? 'italic' : 'normal'
    const weights = wghtIndex >= 0 ? parseWeightValue(values[wghtIndex]) : [400]
    if (!weights) return undefined
    for (const weight of weights) faces.push({family, weight, style})
  }
  return faces
}

function parseWeightValue(value: string): number[] | undefined {
  const range = /^(\d{1,4})\.\.(\d{1,4})$/.exec(value)
  if (range) {
    const [low, high] = [Number(range[1]), Number(range[2])]
    if (low > high || high > 1000) return undefined
    const weights: number[] = []
    for (let weight = Math.ceil(low / 100) * 100; weight <= high; weight += 100) weights.push(weight)
    return weights.length > 0 ? weights : [low]
  }
  const weight = Number(value)
  return Number.isInteger(weight) && weight >= 1 && weight <= 1000 ? [weight] : undefined
}

function parseCss1Family(spec: string): FaceRequest[] | undefined {
  const [rawName, variants] = splitOnce(spec, ':')
  const family = familyName(rawName)
  if (!family) return undefined
  if (variants === undefined || variants === '') return [{family, weight: 400, style: 'normal'}]
  const faces: FaceRequest[] = []
  for (const variant of variants.split(',')) {
    const match = /^(\d{3})?(italic|i)?$|^(regular|bold|b|bolditalic|bi)$/i.exec(variant.trim())
    if (!match || variant.trim() === '') return undefined
    if (match[3]) {
      const word = match[3].toLowerCase()
      faces.push({family, weight: word === 'regular' ? 400 : 700, style: word === 'bi' || word === 'bolditalic' ? 'italic' : 'normal'})
    } else {
      faces.push({family, weight: match[1] ? Number(match[1]) : 400, style: match[2] ? 'italic' : 'normal'})
    }
  }
  return faces
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator)
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)]
}
