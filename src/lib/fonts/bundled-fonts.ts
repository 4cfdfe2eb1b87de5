import {readdirSync} from 'node:fs'
import {readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {packageRoot} from '../sandbox/package-root.js'
import {SERVED_SUBSETS} from './font-subsets.js'

/**
 * The families engine carries in its own `fonts/` folder, one Fontsource package layout each with
 * only the woff2 files a render can use (written by scripts/vendor-fonts.mjs from the list in
 * fonts/vendored.json): the families most used in video templates and the faces the generic
 * families map to, in every served subset, then metric-compatible stand-ins for system and
 * proprietary families and more families, Latin only. A whole Fontsource package also ships woff
 * files and every subset: 78 MB for the first set where these files are 24 MB.
 */
export const VENDORED_FONTS_DIR = join(packageRoot(), 'fonts')

/** Directory of each bundled family's package, sorted; none when the folder is missing. */
export function bundledFontPackageDirectories(): string[] {
  try {
    return readdirSync(VENDORED_FONTS_DIR, {withFileTypes: true})
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(VENDORED_FONTS_DIR, entry.name))
      .sort()
  } catch {
    return []
  }
}

/**
 * The files of the bundled packages a render can use (absolute paths): each package's
 * package.json, metadata.json and unicode.json, and its woff2 files of the served subsets. What a
 * packager (the Lambda bundle) must carry; the woff files and other subsets are not needed.
 */
export async function bundledFontFiles(): Promise<string[]> {
  return (await Promise.all(bundledFontPackageDirectories().map(fontPackageFiles))).flat()
}

/**
 * The files of one Fontsource package a render can use (absolute paths): its package.json,
 * metadata.json and unicode.json, and its woff2 files of the served subsets.
 */
export async function fontPackageFiles(directory: string): Promise<string[]> {
  // Static faces name their weight (`-400-`); a variable package's one file per style, its axis (`-wght-`).
  const subsetPattern = new RegExp(`-(?:${SERVED_SUBSETS.join('|')})-(?:\\d+|wght)-(?:normal|italic)\\.woff2$`)
  const fonts = (await readdir(join(directory, 'files'))).filter((name) => subsetPattern.test(name)).map((name) => join(directory, 'files', name))
  return [...['package.json', 'metadata.json', 'unicode.json'].map((name) => join(directory, name)), ...fonts.sort()]
}
