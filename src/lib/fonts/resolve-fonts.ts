import {findFamily, type CatalogFamily, type FontCatalog, type FontSource, type FontStyle} from './font-catalog.js'
import type {FontDiscovery} from './discover-fonts.js'
import {substitutedNames, substituteFor, type FamilySubstitute} from './family-substitutes.js'
import type {FamilyName} from './css-font-values.js'
import {DEFAULT_FAMILY_FACE, GENERIC_FAMILY_FACES, isGenericFamily} from './generic-families.js'

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
  /** A system or proprietary family drawn with `entry`, a bundled stand-in, under its own name. */
  substitute?: FamilySubstitute
}

/**
 * Resolves each discovered family: the project's own `@font-face` first (left alone), then the
 * font cache, then the bundled set, then the stand-in of a system or proprietary family; generic
 * keywords (and the page default) resolve to their fixed bundled faces. Pure.
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
    const asked = {where: request.where, first: request.first, weights, styles}
    resolutions.set(key, servedAs(request.family, catalog, asked) ?? {family: request.family, source: 'missing', ...asked, generics: []})
  }
  keepDrawnStandIns(resolutions, discovery.lists)
  // Families a script may set: any family engine can serve that a script names counts as used.
  // A stand-in found there is not told about now: the page says whether its text uses it.
  if (scriptText !== '') {
    const servable = [...[...catalog.families.values()].map((entry) => entry.family), ...substitutedNames()]
    for (const family of servable) {
      const key = family.toLowerCase()
      if (resolutions.has(key) || !namedIn(scriptText, family)) continue
      const resolution = servedAs(family, catalog, {where: 'a script', first: true, weights: [], styles: []})
      if (resolution) resolutions.set(key, resolution.substitute ? {...resolution, first: false} : resolution)
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

/** The family as engine serves it: from the catalog under its own name, or a stand-in's faces under the name asked for. */
function servedAs(family: string, catalog: FontCatalog, request: Pick<FamilyResolution, 'where' | 'first' | 'weights' | 'styles'>): FamilyResolution | undefined {
  const entry = findFamily(catalog, family)
  if (entry) return {family: entry.family, source: entry.source, ...request, generics: [], packageName: entry.packageName, version: entry.version, entry}
  const substitute = substituteFor(family)
  const standIn = substitute && findFamily(catalog, substitute.family)
  if (!substitute || !standIn) return undefined
  return {family, source: standIn.source, ...request, generics: [], packageName: standIn.packageName, version: standIn.version, entry: standIn, substitute}
}

/**
 * A stand-in is served only where it draws text: as the first family of some list that engine can
 * draw (`-apple-system, BlinkMacSystemFont, Arial` needs only the first). Those are marked `first`.
 */
function keepDrawnStandIns(resolutions: Map<string, FamilyResolution>, lists: readonly FamilyName[][]): void {
  const drawable = (family: FamilyName) => (family.keyword && isGenericFamily(family.name)) || (resolutions.get(family.name.toLowerCase())?.source ?? 'missing') !== 'missing'
  const drawn = new Set(lists.flatMap((list) => list.find(drawable)?.name.toLowerCase() ?? []))
  for (const [key, resolution] of resolutions) {
    if (!resolution.substitute) continue
    if (drawn.has(key)) resolution.first = true
    else resolutions.delete(key)
  }
}

function namedIn(text: string, family: string): boolean {
  const escaped = family.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'i').test(text)
}
