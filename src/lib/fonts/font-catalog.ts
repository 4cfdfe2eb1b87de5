import {readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {z} from 'zod'
import {bundledFontPackageDirectories} from './bundled-fonts.js'
import {parseUnicodeRange, SERVED_SUBSETS, type CodePointRange} from './font-subsets.js'
import {googleFontsDirectory, installedFontsDirectory} from './font-cache-dir.js'

export type FontStyle = 'normal' | 'italic'
export type FontSource = 'cache' | 'bundled'

export interface FontSubset {
  name: string
  /** As written in the package (`U+0000-00FF,…`), for the injected `unicode-range`. */
  unicodeRange: string
  ranges: CodePointRange[]
}

/** One family as a Fontsource package provides it. */
export interface CatalogFamily {
  family: string
  /** `@fontsource/<slug>` */
  packageName: string
  version: string
  source: FontSource
  directory: string
  weights: number[]
  styles: FontStyle[]
  /** Served subsets the package has, in SERVED_SUBSETS order. */
  subsets: FontSubset[]
  /**
   * A `@fontsource-variable` package: one file per style and subset draws every weight from min to
   * max (its `wght` axis), so a weight such as 450 is drawn as designed, not rounded to 400 or 500.
   */
  variableWeight?: {min: number; max: number; default: number}
}

/** Families by lower-cased name; a family in the cache shadows the bundled one. */
export interface FontCatalog {
  families: Map<string, CatalogFamily>
}

const fontsourceMetadata = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  family: z.string().min(1),
  subsets: z.array(z.string()),
  weights: z.array(z.number().int().min(1).max(1000)).min(1),
  styles: z.array(z.string()),
  // `false` in static packages; the axes of the variable font otherwise (read by weightAxisOf).
  variable: z.unknown().optional(),
})
const weightAxis = z.object({wght: z.object({min: z.coerce.number(), max: z.coerce.number(), default: z.coerce.number()})})

/** The `wght` axis a variable package's metadata declares, if any. */
function weightAxisOf(variable: unknown): {min: number; max: number; default: number} | undefined {
  const parsed = weightAxis.safeParse(variable)
  return parsed.success ? parsed.data.wght : undefined
}
const unicodeTable = z.record(z.string(), z.string())
const packageJson = z.object({name: z.string(), version: z.string()})

/** Fontsource's two npm scopes: static weights, and variable fonts (`engine fonts add --variable`). */
export const FONTSOURCE_SCOPE = '@fontsource'
export const FONTSOURCE_VARIABLE_SCOPE = '@fontsource-variable'
/** The package name scope of families downloaded for a Google Fonts stylesheet (see downloadGoogleFamilies). */
export const GOOGLE_FONTS_SCOPE = '@google-fonts'

/** File of one face of one subset inside a Fontsource package (a variable one has one file for all weights). */
export function fontFilePath(entry: CatalogFamily, subset: string, weight: number, style: FontStyle): string {
  const axis = entry.variableWeight ? 'wght' : String(weight)
  return join(entry.directory, 'files', `${slugOf(entry)}-${subset}-${axis}-${style}.woff2`)
}

/** `@fontsource/ibm-plex-sans` and `@fontsource-variable/ibm-plex-sans` → `ibm-plex-sans`. */
export function slugOf(entry: Pick<CatalogFamily, 'packageName'>): string {
  return entry.packageName.slice(entry.packageName.indexOf('/') + 1)
}

/** `100 200 … 900`, or `100-900 (variable)` for a variable family, as the font commands print them. */
export function weightsText(entry: Pick<CatalogFamily, 'weights' | 'variableWeight'>): string {
  return entry.variableWeight ? `${entry.variableWeight.min}-${entry.variableWeight.max} (variable)` : entry.weights.join(' ')
}

/** Turns a family name into its Fontsource package slug: `IBM Plex Sans` → `ibm-plex-sans`. */
export function familySlug(family: string): string {
  return family
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
}

/**
 * Reads one Fontsource package directory. Undefined for a directory that is not one (or not a
 * well-formed one): the catalog skips it instead of failing every render.
 */
export async function readFontPackage(directory: string, source: FontSource): Promise<CatalogFamily | undefined> {
  try {
    const [meta, unicode, pkg] = await Promise.all(
      ['metadata.json', 'unicode.json', 'package.json'].map(async (name) => JSON.parse(await readFile(join(directory, name), 'utf8')) as unknown),
    )
    const metadata = fontsourceMetadata.parse(meta)
    const ranges = unicodeTable.parse(unicode)
    const {name, version} = packageJson.parse(pkg)
    const subsets: FontSubset[] = []
    for (const subset of SERVED_SUBSETS) {
      const value = ranges[subset]
      const parsed = value === undefined ? undefined : parseUnicodeRange(value)
      if (metadata.subsets.includes(subset) && value !== undefined && parsed) subsets.push({name: subset, unicodeRange: value, ranges: parsed})
    }
    const styles = (['normal', 'italic'] as const).filter((style) => metadata.styles.includes(style))
    if (subsets.length === 0 || styles.length === 0) return undefined
    // A variable package is only of use with its weight axis.
    const isVariable = name.startsWith(`${FONTSOURCE_VARIABLE_SCOPE}/`)
    const wght = isVariable ? weightAxisOf(metadata.variable) : undefined
    if (isVariable && !wght) return undefined
    return {
      family: metadata.family,
      packageName: name,
      version,
      source,
      directory,
      weights: [...metadata.weights].sort((a, b) => a - b),
      styles,
      subsets,
      ...(wght && {variableWeight: wght}),
    }
  } catch {
    return undefined
  }
}

/**
 * Families in the cache, later ones winning: those downloaded for Google Fonts stylesheets, then
 * the Fontsource packages `engine fonts add` installed, static then variable, so that a family
 * added both ways is drawn from its variable font.
 */
async function cachedPackageDirectories(env: NodeJS.ProcessEnv): Promise<string[]> {
  const directories: string[] = []
  const folders = [googleFontsDirectory(env), ...[FONTSOURCE_SCOPE, FONTSOURCE_VARIABLE_SCOPE].map((scope) => join(installedFontsDirectory(env), 'node_modules', scope))]
  for (const folder of folders) {
    const names = await readdir(folder).catch(() => [] as string[])
    // Downloads in progress are hidden folders.
    directories.push(...names.filter((name) => !name.startsWith('.')).sort().map((name) => join(folder, name)))
  }
  return directories
}

const bundledCatalog: {promise?: Promise<CatalogFamily[]>} = {}

function bundledFamilies(): Promise<CatalogFamily[]> {
  bundledCatalog.promise ??= Promise.all(bundledFontPackageDirectories().map((directory) => readFontPackage(directory, 'bundled'))).then(
    (entries) => entries.filter((entry): entry is CatalogFamily => entry !== undefined),
  )
  return bundledCatalog.promise
}

/**
 * Every family engine can serve: packages handed over with the render (a serverless site's
 * fonts) first, then the cache (`engine fonts add`), then the bundled set.
 */
export async function loadFontCatalog(env: NodeJS.ProcessEnv = process.env, packageDirectories: readonly string[] = []): Promise<FontCatalog> {
  const [bundled, cached, handedOver] = await Promise.all([
    bundledFamilies(),
    cachedPackageDirectories(env).then((directories) => Promise.all(directories.map((directory) => readFontPackage(directory, 'cache')))),
    Promise.all(packageDirectories.map((directory) => readFontPackage(directory, 'cache'))),
  ])
  const families = new Map<string, CatalogFamily>()
  for (const entry of [...bundled, ...cached, ...handedOver]) if (entry) families.set(entry.family.toLowerCase(), entry)
  return {families}
}

export function findFamily(catalog: FontCatalog, family: string): CatalogFamily | undefined {
  return catalog.families.get(family.trim().toLowerCase())
}
