import {EngineError} from '../errors/engine-error.js'

/** Largest side Chromium can composite and screenshot (its maximum texture size). */
export const MAX_SIDE_PIXELS = 16384

/** Throws COMPOSITION_INVALID for a frame size the browser cannot draw, before any browser starts. */
export function assertDrawableSize(width: number, height: number): void {
  for (const [name, value] of [['data-width', width], ['data-height', height]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_SIDE_PIXELS) {
      throw new EngineError(
        'COMPOSITION_INVALID',
        `${name}="${value}": the browser draws frames of 1 to ${MAX_SIDE_PIXELS} pixels a side; use a size in that range (for example 1920x1080)`,
        {field: name, value, limit: MAX_SIDE_PIXELS},
      )
    }
  }
}
