import type {CheerioAPI} from 'cheerio'
import {relative} from 'node:path'
import {engineAssetUrl} from '../sandbox/page-origin.js'
import {discoverFonts} from './discover-fonts.js'
import {cacheFontFile} from './font-assets.js'
import {fontFilePath, loadFontCatalog, type CatalogFamily, type FontStyle} from './font-catalog.js'
import type {EagerFace, RuntimeFonts, ServedFontFace} from './font-plan.js'
import {DEFAULT_FAMILY_FACE} from './generic-families.js'
import {resolveFonts, type FamilyResolution} from './resolve-fonts.js'
import {missingFamilyFix, substitutionFinding, type FontFinding} from './font-findings.js'
import {downloadGoogleFamilies, googleFamiliesToDownload} from './google-fonts-download.js'

export interface CompiledFonts {
  families: FamilyResolution[]
  runtime: RuntimeFonts
  /** Google Fonts stylesheets removed from the page (their faces are served locally). */
  removedUrls: string[]
  findings: FontFinding[]
}

/** Marks the engine's own stylesheet in the compiled page. */
export const FONTS_STYLE_ATTRIBUTE = 'data-engine-fonts'

/**
 * The fonts stage of compile: finds what the page asks for, removes Google Fonts stylesheets,
 * maps generic families to bundled faces, resolves every family, puts the files of the served
 * ones into the font cache, and describes the faces for the runtime. Mutates `$`.
 */
export interface PrepareFontsOptions {
  env?: NodeJS.ProcessEnv
  /** Packages handed over with the render (a serverless site's fonts). */
  fontPackages?: readonly string[]
  /** Download families a Google Fonts stylesheet asks for that are neither bundled nor cached (once, into the cache). */
  downloadFonts?: boolean
}

export async function prepareFonts($: CheerioAPI, options: PrepareFontsOptions = {}): Promise<CompiledFonts> {
  const env = options.env ?? process.env
  const discovery = discoverFonts($)
  const scriptText = $('script:not([src])')
    .toArray()
    .map((element) => $(element).text())
    .join('\n')
  let catalog = await loadFontCatalog(env, options.fontPackages)
  const downloadFailures = new Map<string, string>()
  const wanted = options.downloadFonts ? await googleFamiliesToDownload(discovery, catalog) : []
  if (wanted.length > 0) {
    const outcome = await downloadGoogleFamilies(wanted, env)
    for (const {family, reason} of outcome.failed) downloadFailures.set(family.toLowerCase(), reason)
    if (outcome.downloaded.length > 0) catalog = await loadFontCatalog(env, options.fontPackages)
  }
  const families = resolveFonts(discovery, catalog, scriptText)
  const served = families.filter((family): family is FamilyResolution & {entry: CatalogFamily} => family.entry !== undefined)
  const faces = (await Promise.all(served.map((family) => servedFaces(family.family, family.entry, env)))).flat()
  const eager: EagerFace[] = served.flatMap((family) => eagerFaces(family))
  // The page default (text that names no family) is the standard font, a serif: a bundled face too.
  $('head').prepend(`<style ${FONTS_STYLE_ATTRIBUTE}>:where(html){font-family:"${DEFAULT_FAMILY_FACE}"}</style>`)

  const findings: FontFinding[] = discovery.unreadableUrls.map((url) => ({
    code: 'font-url-unreadable',
    message: `cannot read the font stylesheet URL ${url}: it was removed so the render does not wait on the network; name the families with font-family (bundled or \`engine fonts add "<family>"\`) or an @font-face rule`,
  }))
  for (const family of families) {
    if (!family.first) continue
    if (family.substitute) findings.push(substitutionFinding(family.family, family.substitute))
    else if (family.source === 'missing') findings.push({code: 'font-fallback', family: family.family, message: missingFamilyMessage(family, downloadFailures.get(family.family.toLowerCase()))})
  }
  return {families, runtime: {faces, eager}, removedUrls: discovery.googleUrls, findings}
}

function missingFamilyMessage(family: FamilyResolution, downloadFailure?: string): string {
  const weights = family.weights.length > 0 ? ` (weight ${family.weights.join(', ')}${family.styles.includes('italic') ? ', italic' : ''})` : ''
  const download = downloadFailure === undefined ? '' : ` Downloading it from Google Fonts failed: ${downloadFailure}.`
  return (
    `font-family "${family.family}"${weights}, asked for in ${family.where}, is not declared with @font-face, bundled or in the font cache: ` +
    `its text falls back to another font.${download} ${missingFamilyFix(family.family)}`
  )
}

/**
 * Every weight, style and served subset of a family: CSS picks among them as it would on the web.
 * A variable family has one face per style and subset, covering its whole weight range. The
 * faces carry `family`, the name the page asks for (a stand-in's files serve a proprietary name).
 */
async function servedFaces(family: string, entry: CatalogFamily, env: NodeJS.ProcessEnv): Promise<ServedFontFace[]> {
  const faces: Promise<ServedFontFace>[] = []
  const variable = entry.variableWeight
  for (const weight of variable ? [variable.default] : entry.weights) {
    for (const style of entry.styles) {
      for (const subset of entry.subsets) {
        const path = fontFilePath(entry, subset.name, weight, style)
        faces.push(
          cacheFontFile(path, env).then((name) => ({
            family,
            weight,
            ...(variable && {weightRange: `${variable.min} ${variable.max}`}),
            style,
            unicodeRange: subset.unicodeRange,
            url: engineAssetUrl('fonts', name),
            name,
            file: `${entry.packageName}/${relative(entry.directory, path).split('\\').join('/')}`,
          })),
        )
      }
    }
  }
  return Promise.all(faces)
}

function eagerFaces(family: FamilyResolution & {entry: CatalogFamily}): EagerFace[] {
  const weights = family.weights.length > 0 ? family.weights : [400]
  const styles: FontStyle[] = family.styles.length > 0 ? family.styles : ['normal']
  return weights.flatMap((weight) => styles.map((style) => ({family: family.family, weight, style})))
}
