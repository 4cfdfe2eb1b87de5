import {randomUUID} from 'node:crypto'
import {mkdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {googleFontsDirectory} from './font-cache-dir.js'
import type {FontDiscovery} from './discover-fonts.js'
import {familySlug, findFamily, GOOGLE_FONTS_SCOPE, type FontCatalog, type FontStyle} from './font-catalog.js'
import {SERVED_SUBSETS} from './font-subsets.js'

/** Base URL of the Google Fonts CSS API; a test points it at a stand-in on loopback. */
export const GOOGLE_FONTS_API_ENV = 'ENGINE_GOOGLE_FONTS_API'
const GOOGLE_FONTS_API = 'https://fonts.googleapis.com'
/** Where the API's stylesheets point for the font files; nothing else is downloaded. */
const GOOGLE_FONTS_FILES = 'https://fonts.gstatic.com'

const STYLESHEET_TIMEOUT_MS = 5_000
const FILE_TIMEOUT_MS = 15_000
const MAX_STYLESHEET_BYTES = 1024 * 1024
const MAX_FILE_BYTES = 5 * 1024 * 1024
const MAX_FACES_PER_FAMILY = 200
/** The API answers each browser with the formats it reads: this one gets woff2 split into unicode-range subsets. */
const WOFF2_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36'

export interface GoogleFamilyRequest {
  family: string
  weights: readonly number[]
  styles: readonly FontStyle[]
}

export interface GoogleDownloadOutcome {
  /** Families now in the cache. */
  downloaded: string[]
  /** Families that could not be fetched, with why (offline, unknown to Google Fonts, a refused answer). */
  failed: {family: string; reason: string}[]
}

interface DownloadedFace {
  subset: string
  weight: number
  style: FontStyle
  unicodeRange: string
  url: string
}

/** What a download asked the API for, kept beside the family: faces the family lacks are not asked for again. */
const ASKED_FILE = 'engine-download.json'

/**
 * Failures of this process by family, kept for a while: an offline machine tries each family once
 * in that time, not once per render, and a long-running `engine serve` tries again once it may be online.
 */
const failedThisProcess = new Map<string, {reason: string; at: number}>()
export const DOWNLOAD_RETRY_AFTER_MS = 10 * 60_000

/**
 * Families a Google Fonts stylesheet asks for that no bundled or added package serves, and those
 * downloaded before without a weight or style asked for now (downloaded again with all of them).
 * A bundled or added family is never downloaded: its package is what every machine has.
 */
export async function googleFamiliesToDownload(discovery: FontDiscovery, catalog: FontCatalog): Promise<GoogleFamilyRequest[]> {
  const wanted: GoogleFamilyRequest[] = []
  for (const key of discovery.googleFamilies) {
    const request = discovery.requests.get(key)
    if (!request || discovery.projectFamilies.has(key)) continue
    const entry = findFamily(catalog, request.family)
    if (entry && !entry.packageName.startsWith(`${GOOGLE_FONTS_SCOPE}/`)) continue
    const asked = entry ? await askedBefore(entry.directory) : {weights: [], styles: []}
    const weights = new Set([...(entry?.weights ?? []), ...asked.weights])
    const styles = new Set([...(entry?.styles ?? []), ...asked.styles])
    if (entry && [...request.weights].every((weight) => weights.has(weight)) && [...request.styles].every((style) => styles.has(style))) continue
    wanted.push({family: request.family, weights: [...new Set([...weights, ...request.weights])].sort((a, b) => a - b), styles: [...new Set([...styles, ...request.styles])].sort()})
  }
  return wanted
}

async function askedBefore(directory: string): Promise<{weights: number[]; styles: FontStyle[]}> {
  try {
    const asked = JSON.parse(await readFile(join(directory, ASKED_FILE), 'utf8')) as {weights?: unknown; styles?: unknown}
    return {
      weights: Array.isArray(asked.weights) ? asked.weights.filter((weight): weight is number => typeof weight === 'number') : [],
      styles: Array.isArray(asked.styles) ? asked.styles.filter((style): style is FontStyle => style === 'normal' || style === 'italic') : [],
    }
  } catch {
    return {weights: [], styles: []}
  }
}

/**
 * Downloads the faces of families a Google Fonts stylesheet asks for, once, into the font cache
 * (`<cache>/fonts/google/<slug>`, laid out like a Fontsource package, so every later render, a
 * serverless site and `engine fonts list` find it like one). Only the API's stylesheet and the
 * woff2 files it names on fonts.gstatic.com are fetched, each bounded in time and size; the page
 * itself never reaches Google.
 */
export async function downloadGoogleFamilies(requests: readonly GoogleFamilyRequest[], env: NodeJS.ProcessEnv = process.env): Promise<GoogleDownloadOutcome> {
  const outcome: GoogleDownloadOutcome = {downloaded: [], failed: []}
  for (const request of requests) {
    const key = request.family.toLowerCase()
    const earlier = failedThisProcess.get(key)
    if (earlier && Date.now() - earlier.at < DOWNLOAD_RETRY_AFTER_MS) {
      outcome.failed.push({family: request.family, reason: earlier.reason})
      continue
    }
    try {
      await downloadFamily(request, env)
      outcome.downloaded.push(request.family)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      failedThisProcess.set(key, {reason, at: Date.now()})
      outcome.failed.push({family: request.family, reason})
    }
  }
  return outcome
}

async function downloadFamily(request: GoogleFamilyRequest, env: NodeJS.ProcessEnv): Promise<void> {
  const slug = familySlug(request.family)
  // The slug names the family's folder in the cache: an empty one would name the cache itself.
  if (!/^[a-z0-9][a-z0-9-]*$/.test(slug)) throw new Error(`the family name ${JSON.stringify(request.family.slice(0, 80))} has no letters or digits to name it by`)
  const api = apiBase(env)
  const faces = await stylesheetFaces(request, api)
  if (faces.length === 0) throw new Error(`Google Fonts serves none of the subsets engine uses (${SERVED_SUBSETS.join(', ')}) for "${request.family}"`)
  if (faces.length > MAX_FACES_PER_FAMILY) throw new Error(`the stylesheet names ${faces.length} faces, more than ${MAX_FACES_PER_FAMILY}`)
  const filesOrigin = env[GOOGLE_FONTS_API_ENV] ? new URL(api).origin : GOOGLE_FONTS_FILES
  for (const face of faces) {
    if (new URL(face.url).origin !== filesOrigin) throw new Error(`the stylesheet points at ${face.url}, not at ${filesOrigin}`)
  }

  const root = googleFontsDirectory(env)
  const partial = join(root, `.${slug}.${randomUUID().slice(0, 8)}.partial`)
  await mkdir(join(partial, 'files'), {recursive: true})
  try {
    for (const face of faces) {
      const data = await readBounded(await fetchWithTimeout(face.url, FILE_TIMEOUT_MS), face.url, MAX_FILE_BYTES)
      if (data.subarray(0, 4).toString('latin1') !== 'wOF2') throw new Error(`${face.url} is not a woff2 font`)
      await writeFile(join(partial, 'files', `${slug}-${face.subset}-${face.weight}-${face.style}.woff2`), data)
    }
    await writePackageFiles(partial, request.family, slug, faces)
    await writeFile(join(partial, ASKED_FILE), JSON.stringify({weights: request.weights, styles: request.styles}) + '\n')
    const target = join(root, slug)
    await rm(target, {recursive: true, force: true})
    await rename(partial, target)
  } catch (error) {
    await rm(partial, {recursive: true, force: true})
    throw error
  }
}

function apiBase(env: NodeJS.ProcessEnv): string {
  const base = env[GOOGLE_FONTS_API_ENV] || GOOGLE_FONTS_API
  return base.replace(/\/+$/, '')
}

/** The css2 URL for some faces of a family; the API wants the tuples sorted and refuses a weight the family lacks. */
function stylesheetUrl(api: string, family: string, faces: readonly {weight: number; style: FontStyle}[]): string {
  const tuples = [...new Set(faces.map((face) => `${face.style === 'italic' ? 1 : 0},${face.weight}`))].sort((a, b) => {
    const [italA, weightA] = a.split(',').map(Number)
    const [italB, weightB] = b.split(',').map(Number)
    return italA - italB || weightA - weightB
  })
  return `${api}/css2?family=${encodeURIComponent(family).replaceAll('%20', '+')}:ital,wght@${tuples.join(';')}&display=block`
}

/**
 * The faces the API lists for the request. A family without one of the asked weights makes the
 * API refuse the whole stylesheet (HTTP 400), so the faces are then asked for one at a time and
 * those the family has are kept.
 */
async function stylesheetFaces(request: GoogleFamilyRequest, api: string): Promise<DownloadedFace[]> {
  const asked = (request.weights.length > 0 ? request.weights : [400]).flatMap((weight) =>
    (request.styles.length > 0 ? request.styles : (['normal'] as const)).map((style) => ({weight, style})),
  )
  const whole = await fetchStylesheet(stylesheetUrl(api, request.family, asked))
  if (whole !== undefined) return parseStylesheet(whole)
  const faces: DownloadedFace[] = []
  for (const face of asked) {
    const one = await fetchStylesheet(stylesheetUrl(api, request.family, [face]))
    if (one !== undefined) faces.push(...parseStylesheet(one))
  }
  if (faces.length === 0) throw new Error(`Google Fonts has no family "${request.family}" with weight ${asked.map((face) => face.weight).join(', ')}`)
  return faces
}

/** The stylesheet's text, or undefined when the API refuses the request (400: no such family or face). */
async function fetchStylesheet(url: string): Promise<string | undefined> {
  const response = await fetchWithTimeout(url, STYLESHEET_TIMEOUT_MS, {'user-agent': WOFF2_USER_AGENT, accept: 'text/css'})
  if (response.status === 400) {
    await response.body?.cancel()
    return undefined
  }
  return (await readBounded(response, url, MAX_STYLESHEET_BYTES)).toString('utf8')
}

/**
 * The `@font-face` blocks of an API stylesheet: each follows a comment naming its subset
 * (`/* latin-ext *\/`); blocks of subsets engine does not serve (numbered CJK slices) are skipped.
 */
export function parseStylesheet(css: string): DownloadedFace[] {
  const faces: DownloadedFace[] = []
  const served = new Set<string>(SERVED_SUBSETS)
  for (const match of css.matchAll(/\/\*\s*([\w-]+)\s*\*\/\s*@font-face\s*\{([^}]*)\}/g)) {
    const [, subset, body] = match
    if (!served.has(subset)) continue
    const declaration = (name: string) => new RegExp(`(?:^|;)\\s*${name}\\s*:\\s*([^;]+)`).exec(body)?.[1].trim()
    const style = declaration('font-style')
    const weight = Number(declaration('font-weight'))
    const url = /url\(\s*['"]?([^'")\s]+)['"]?\s*\)\s*format\(\s*['"]woff2['"]\s*\)/.exec(declaration('src') ?? '')?.[1]
    const unicodeRange = declaration('unicode-range')
    if ((style !== 'normal' && style !== 'italic') || !Number.isInteger(weight) || weight < 1 || weight > 1000 || !url || !unicodeRange) continue
    faces.push({subset, weight, style, unicodeRange, url})
  }
  return faces
}

/**
 * Writes the family's package files. Every weight and style is served in every subset, so a subset
 * that lacks one of them (the API has not been seen to do that) is left out rather than half-served.
 */
async function writePackageFiles(directory: string, family: string, slug: string, faces: readonly DownloadedFace[]): Promise<void> {
  const weights = [...new Set(faces.map((face) => face.weight))].sort((a, b) => a - b)
  const styles = (['normal', 'italic'] as const).filter((style) => faces.some((face) => face.style === style))
  const complete = (subset: string) => weights.every((weight) => styles.every((style) => faces.some((face) => face.subset === subset && face.weight === weight && face.style === style)))
  const subsets = SERVED_SUBSETS.filter((subset) => faces.some((face) => face.subset === subset) && complete(subset))
  if (subsets.length === 0) throw new Error(`the stylesheet has no subset with every weight and style of "${family}"`)
  const unicode = Object.fromEntries(subsets.map((subset) => [subset, faces.find((face) => face.subset === subset)!.unicodeRange]))
  const metadata = {id: slug, family, subsets, weights, styles, variable: false}
  const pkg = {name: `${GOOGLE_FONTS_SCOPE}/${slug}`, version: `0.0.0-downloaded.${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`}
  await Promise.all([
    writeFile(join(directory, 'metadata.json'), JSON.stringify(metadata, null, 2) + '\n'),
    writeFile(join(directory, 'unicode.json'), JSON.stringify(unicode, null, 2) + '\n'),
    writeFile(join(directory, 'package.json'), JSON.stringify(pkg, null, 2) + '\n'),
  ])
}

async function fetchWithTimeout(url: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(url, {headers, redirect: 'error', signal: AbortSignal.timeout(timeoutMs)}).catch((error: Error) => {
    const cause = (error.cause as Error | undefined)?.message
    throw new Error(error.name === 'TimeoutError' ? `${url} did not answer within ${timeoutMs / 1000} s` : `cannot reach ${new URL(url).host}${cause ? ` (${cause})` : ''}`)
  })
  if (!response.ok && response.status !== 400) {
    await response.body?.cancel()
    throw new Error(`${url} answered HTTP ${response.status}`)
  }
  return response
}

async function readBounded(response: Response, url: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  // Node's web streams are async iterable; the DOM typings do not say so.
  for await (const chunk of (response.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > maxBytes) throw new Error(`${url} is larger than ${maxBytes / 1024 / 1024} MiB`)
    chunks.push(Buffer.from(chunk))
  }
  return Buffer.concat(chunks)
}
