import {findFamily, type CatalogFamily, type FontCatalog, type FontSource, type FontStyle} from './font-catalog.js'
import type {FontDiscovery} from './discover-fonts.js'
import {DEFAULT_FAMILY_FACE, GENERIC_FAMILY_FACES} from './generic-families.js'

/** How one family the composition asks for is drawn. */
export interface FamilyResolution {
  family: string
  source: 'project' | FontSource | 'missing'
  /** Where it was asked for (`<style>`, a style attribute, a Google Fonts URL, a generic keyword). */
  where: string
  /** Named first in a family list somewhere (or by a Google Fonts URL, a script, a generic): text is drawn in it. */
  first: boolean
  weights: number[]
  styles: FontStyle[]
  /** Generic keywords drawn with this family (`sans-serif` → Noto Sans). */
  generics: string[]
  packageName?: string
  version?: string
  entry?: CatalogFamily
}

/**
 * Resolves each discovered family: the project's own `@font-face` first (left alone), then the
 * font cache, then the bundled set; generic keywords (and the page default) resolve to their
 * fixed bundled faces. Pure.
 */
export function resolveFonts(discovery: FontDiscovery, catalog: FontCatalog, scriptText = ''): FamilyResolution[] {
  const resolutions = new Map<string, FamilyResolution>()
  for (const [key, request] of discovery.requests) {
    const weights = [...request.weights].sort((a, b) => a - b)
    const styles = [...request.styles].sort() as FontStyle[]
    if (discovery.projectFamilies.has(key)) {
      resolutions.set(key, {family: request.family, source: 'project', where: request.where, first: request.first, weights, styles, generics: []})
      continue
    }
    const entry = findFamily(catalog, request.family)
    resolutions.set(
      key,
      entry
        ? {family: entry.family, source: entry.source, where: request.where, first: request.first, weights, styles, generics: [], packageName: entry.packageName, version: entry.version, entry}
        : {family: request.family, source: 'missing', where: request.where, first: request.first, weights, styles, generics: []},
    )
  }
  // Families a script may set: any served family named in a script counts as used.
  if (scriptText !== '') {
    for (const [key, entry] of catalog.families) {
      if (resolutions.has(key) || !namedIn(scriptText, entry.family)) continue
      resolutions.set(key, {family: entry.family, source: entry.source, where: 'a script', first: true, weights: [], styles: [], generics: [], packageName: entry.packageName, version: entry.version, entry})
    }
  }
  const generics = new Map<string, string[]>()
  for (const keyword of [...discovery.generics].sort()) {
    const face = GENERIC_FAMILY_FACES[keyword]
    generics.set(face, [...(generics.get(face) ?? []), keyword])
  }
  if (!generics.has(DEFAULT_FAMILY_FACE)) generics.set(DEFAULT_FAMILY_FACE, [])
  for (const [face, keywords] of generics) {
    const key = face.toLowerCase()
    const existing = resolutions.get(key)
    if (existing) {
      existing.generics.push(...keywords)
      continue
    }
    const entry = findFamily(catalog, face)
    const where = keywords.length > 0 ? `generic ${keywords.join(', ')}` : 'the page default'
    resolutions.set(
      key,
      entry
        ? {family: entry.family, source: entry.source, where, first: true, weights: [], styles: [], generics: keywords, packageName: entry.packageName, version: entry.version, entry}
        : {family: face, source: 'missing', where, first: true, weights: [], styles: [], generics: keywords},
    )
  }
  return [...resolutions.values()]
}

function namedIn(text: string, family: string): boolean {
  const escaped = family.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'i').test(text)
}
