import {join} from 'node:path'
import {engineAssetDirectory} from '../sandbox/page-origin.js'

/**
 * `$ENGINE_CACHE_DIR/fonts`: the content-addressed font files the page is served
 * (`<sha256>.woff2`, behind `engineAssetUrl('fonts', …)`), and under `packages/` the Fontsource
 * packages `engine fonts add` installed.
 */
export function fontCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return engineAssetDirectory('fonts', env)
}

/** npm prefix of `engine fonts add`: packages land in `<this>/node_modules/@fontsource/<slug>`. */
export function installedFontsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(fontCacheDirectory(env), 'packages')
}
