import {readdirSync} from 'node:fs'
import {createRequire} from 'node:module'
import {readdir} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {packageRoot} from '../sandbox/package-root.js'
import {SERVED_SUBSETS} from './font-subsets.js'

/**
 * Fontsource packages shipped as dependencies: the families most used in video templates, plus
 * the faces the generic families map to (Noto Serif, Noto Sans Mono, Dancing Script). Every one
 * is an npm dependency of engine at a fixed major version, OFL-licensed.
 */
export const BUNDLED_FONT_SLUGS = [
  'anton',
  'archivo-black',
  'barlow',
  'bebas-neue',
  'dancing-script',
  'dm-sans',
  'eb-garamond',
  'ibm-plex-mono',
  'ibm-plex-sans',
  'inter',
  'jetbrains-mono',
  'lato',
  'league-gothic',
  'manrope',
  'merriweather',
  'montserrat',
  'noto-sans',
  'noto-sans-mono',
  'noto-serif',
  'nunito',
  'open-sans',
  'oswald',
  'playfair-display',
  'poppins',
  'raleway',
  'roboto',
  'source-code-pro',
  'space-grotesk',
  'work-sans',
] as const

const require = createRequire(import.meta.url)

/**
 * Families engine carries in its own `fonts/` folder as Latin woff2 files only (Fontsource layout,
 * written by scripts/vendor-fonts.mjs): metric-compatible stand-ins for system and proprietary
 * families and more families templates use, at a fraction of a whole package's size.
 */
export const VENDORED_FONTS_DIR = join(packageRoot(), 'fonts')

/**
 * Directory of each bundled Fontsource package, as installed next to engine, then those engine
 * carries itself. A package that is not installed is left out: its families then resolve as
 * missing, with the warning that says so.
 */
export function bundledFontPackageDirectories(): string[] {
  const installed = BUNDLED_FONT_SLUGS.flatMap((slug) => {
    try {
      return [dirname(require.resolve(`@fontsource/${slug}/package.json`))]
    } catch {
      return []
    }
  })
  return [...installed, ...vendoredFontDirectories()]
}

function vendoredFontDirectories(): string[] {
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
