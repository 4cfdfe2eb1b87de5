import {load} from '../vendor/cheerio.js'
import {compileComposition} from '../compose/compile-composition.js'
import {chooseFps, formatFps, type Fps} from '../plan/fps.js'
import {RUNTIME_CONFIG_GLOBAL, runtimeConfig} from '../runtime/runtime-config.js'

/** Where the preview server answers with files of the font cache (`<sha256>.woff2`). */
export const PREVIEW_FONTS_PATH = '/__engine/fonts/'

/**
 * The composition as the preview's iframe loads it: compiled exactly as for a render (same
 * variables resolution, sub-compositions inlined), with `window.__ENGINE_CONFIG__` and the
 * runtime script (`runtimeUrl`) as the first scripts of the document, so they run before any
 * page script, as in capture.
 */
export async function compositionDocument(file: string, options: {variables: Record<string, unknown>; fps?: Fps; runtimeUrl: string}): Promise<string> {
  const compiled = await compileComposition(file, {variables: options.variables, downloadFonts: true})
  const runtime = runtimeConfig(compiled, {fps: previewFps(options.fps, compiled.declaredFps).fps, embedded: true})
  // The player page's origin is the preview server: it serves the font cache at the same path.
  const config = runtime.fonts ? {...runtime, fonts: {...runtime.fonts, faces: runtime.fonts.faces.map((face) => ({...face, url: PREVIEW_FONTS_PATH + face.name}))}} : runtime
  const $ = load(compiled.html)
  $('head').prepend(
    `<script>window.${RUNTIME_CONFIG_GLOBAL} = ${scriptSafeJson(config)};</script>`,
    `<script src="${options.runtimeUrl}"></script>`,
  )
  return $.html()
}

/** JSON that cannot end the inline script it is written into. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

/** The player's rate: `--fps` (or the config file's), else the root's data-fps, else 30, as a render chooses. */
export function previewFps(explicit: Fps | undefined, declared: string | undefined): ReturnType<typeof chooseFps> {
  return chooseFps(explicit && formatFps(explicit), declared)
}
