import {formatForOutput} from './format-from-output.js'
import {parseRenderOptions, RENDER_DEFAULTS, type RenderOptionsInput, type ResolvedRenderOptions} from '../plan/render-options.js'
export type {ResolvedRenderOptions} from '../plan/render-options.js'

/**
 * Layers, lowest first: built-in defaults, the config file, then what the caller passed (flags,
 * request body, SDK). Each layer was validated where it entered; the merge is validated again so
 * that combinations across layers (a crf from config with a bitrate flag) are caught too. Without
 * an explicit format, the output's extension chooses it (`-o x.webm`). `strict` turns on the
 * other strict options.
 */
export function resolveRenderOptions(...layers: RenderOptionsInput[]): ResolvedRenderOptions {
  const merged: Record<string, unknown> = {...RENDER_DEFAULTS}
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) if (value !== undefined) merged[key] = value
  }
  const explicitFormat = layers.findLast((layer) => layer.format !== undefined)?.format
  merged.format = formatForOutput(merged.output as string | undefined, explicitFormat) ?? merged.format
  if (merged.strict === true) Object.assign(merged, {strictVariables: true, strictFonts: true})
  return parseRenderOptions(merged) as ResolvedRenderOptions
}
