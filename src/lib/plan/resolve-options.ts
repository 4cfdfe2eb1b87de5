import {parseRenderOptions, RENDER_DEFAULTS, type RenderOptionsInput} from './render-options.js'

/** Render options with every default filled in. */
export type ResolvedRenderOptions = RenderOptionsInput & Required<Pick<RenderOptionsInput, keyof typeof RENDER_DEFAULTS>>

/**
 * Layers, lowest first: built-in defaults, the config file, then what the caller passed (flags,
 * request body, SDK). Each layer was validated where it entered; the merge is validated again so
 * that combinations across layers (a crf from config with a bitrate flag) are caught too.
 */
export function resolveRenderOptions(...layers: RenderOptionsInput[]): ResolvedRenderOptions {
  const merged: Record<string, unknown> = {...RENDER_DEFAULTS}
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) if (value !== undefined) merged[key] = value
  }
  return parseRenderOptions(merged) as ResolvedRenderOptions
}
