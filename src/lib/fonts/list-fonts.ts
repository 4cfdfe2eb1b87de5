import {readdir, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {fontCacheDirectory} from './font-cache-dir.js'
import {loadFontCatalog, type FontSource, type FontStyle} from './font-catalog.js'
import {substituteTable} from './family-substitutes.js'
import {GENERIC_FAMILY_FACES} from './generic-families.js'

export interface ListedFamily {
  family: string
  source: FontSource
  packageName: string
  version: string
  weights: number[]
  /** A variable family's weight range (its `wght` axis). */
  variableWeight?: {min: number; max: number; default: number}
  styles: FontStyle[]
  subsets: string[]
}

export interface FontList {
  families: ListedFamily[]
  generics: Record<string, string>
  /** System and proprietary family names, each drawn with the bundled stand-in given. */
  substitutes: {names: string[]; family: string; kind: 'metric-compatible' | 'close'; why: string}[]
  cache: {directory: string; bytes: number; files: number}
}

/** Every family engine serves without the network (`engine fonts list`), and the cache's size. */
export async function listFonts(env: NodeJS.ProcessEnv = process.env): Promise<FontList> {
  const catalog = await loadFontCatalog(env)
  const families = [...catalog.families.values()]
    .map((entry) => ({
      family: entry.family,
      source: entry.source,
      packageName: entry.packageName,
      version: entry.version,
      weights: entry.weights,
      ...(entry.variableWeight && {variableWeight: entry.variableWeight}),
      styles: entry.styles,
      subsets: entry.subsets.map((subset) => subset.name),
    }))
    .sort((a, b) => a.family.localeCompare(b.family))
  const directory = fontCacheDirectory(env)
  const substitutes = substituteTable().map((row) => ({names: [...row.names], family: row.family, kind: row.kind, why: row.why}))
  return {families, generics: {...GENERIC_FAMILY_FACES}, substitutes, cache: {directory, ...(await directorySize(directory))}}
}

async function directorySize(directory: string): Promise<{bytes: number; files: number}> {
  let bytes = 0
  let files = 0
  const entries = await readdir(directory, {withFileTypes: true, recursive: true}).catch(() => [])
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const info = await stat(join(entry.parentPath, entry.name)).catch(() => undefined)
    if (info) {
      bytes += info.size
      files += 1
    }
  }
  return {bytes, files}
}
