import {join} from 'node:path'
import {engineAssetDirectory} from '../sandbox/page-origin.js'

/**
 * `$ENGINE_CACHE_DIR/fonts`: the content-addressed font files the page is served
 * (`<sha256>.woff2`, behind `engineAssetUrl('fonts', …)`), under `packages/` the Fontsource
 * packages `engine fonts add` installed, and under `google/` the families downloaded for Google
 * Fonts stylesheets.
 */
export function fontCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return engineAssetDirectory('fonts', env)
}

/** npm prefix of `engine fonts add`: packages land in `<this>/node_modules/@fontsource/<slug>`. */
export function installedFontsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(fontCacheDirectory(env), 'packages')
}

/** Families downloaded from Google Fonts: `<this>/<slug>`, each laid out like a Fontsource package. */
export function googleFontsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(fontCacheDirectory(env), 'google')
}
