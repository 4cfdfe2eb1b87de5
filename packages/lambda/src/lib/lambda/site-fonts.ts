import {readdir} from 'node:fs/promises'
import {join, relative, sep} from 'node:path'
import {compileComposition} from 'html-video-engine/internal/lib/compose/compile-composition.js'
import {fontPackageFiles} from 'html-video-engine/internal/lib/fonts/bundled-fonts.js'
import {slugOf, type CatalogFamily} from 'html-video-engine/internal/lib/fonts/font-catalog.js'
import {hashFile, type SiteFile} from './site-files.js'

/** Where a site keeps the Fontsource packages its composition uses, one folder per package. */
export const SITE_FONTS_DIR = '.engine/fonts'

/**
 * The fonts a site carries: every Fontsource package the composition's families resolve to on
 * this machine (bundled or added with `engine fonts add`), woff2 files of the served subsets only.
 * The function has none of them, and a chunk never fetches a font, so the site brings them along
 * and the render on Lambda resolves exactly the faces a local render does.
 */
export async function siteFontFiles(projectDir: string, entry: string): Promise<SiteFile[]> {
  // A composition that does not compile carries no fonts: the render's plan step reports it.
  const compiled = await compileComposition(join(projectDir, entry), {projectDir, downloadFonts: true}).catch(() => undefined)
  if (!compiled) return []
  const packages = new Map(compiled.fonts.families.flatMap((family) => (family.entry ? [[siteFolderOf(family.entry), family.entry.directory] as const] : [])))
  const files: SiteFile[] = []
  for (const [slug, directory] of [...packages].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const absolutePath of await fontPackageFiles(directory)) {
      const path = `${SITE_FONTS_DIR}/${slug}/${relative(directory, absolutePath).split(sep).join('/')}`
      files.push({path, absolutePath, ...(await hashFile(absolutePath))})
    }
  }
  return files
}

/** `<slug>` for a static Fontsource package, `<slug>-variable` for a variable one (both may be there). */
function siteFolderOf(entry: CatalogFamily): string {
  return entry.variableWeight ? `${slugOf(entry)}-variable` : slugOf(entry)
}

/** The Fontsource package directories a downloaded site carries (none for an older site). */
export async function siteFontPackages(siteDir: string): Promise<string[]> {
  const directory = join(siteDir, SITE_FONTS_DIR)
  const names = await readdir(directory).catch(() => [] as string[])
  return names.sort().map((name) => join(directory, name))
}
