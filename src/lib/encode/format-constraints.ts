import {EngineError} from '../errors/engine-error.js'
import {formatFps, fpsValue, type Fps} from '../plan/fps.js'
import type {FormatPlugin} from './format-plugin.js'

/** The fps the planner should render at: the requested one, clamped to the format's cap (GIF 30). */
export function clampFpsToFormat(plugin: FormatPlugin, fps: Fps): Fps {
  return plugin.maxFps !== undefined && fpsValue(fps) > plugin.maxFps ? {num: plugin.maxFps, den: 1} : fps
}

/**
 * Rejects sizes a format cannot encode. H.264 yuv420p halves chroma in both directions, so odd
 * sizes are refused here with the fix, rather than padded (which would change the output size).
 */
export function assertFormatAccepts(plugin: FormatPlugin, size: {width: number; height: number}): void {
  if (!plugin.evenDimensions) return
  const odd = (['width', 'height'] as const).filter((side) => size[side] % 2 !== 0)
  if (odd.length === 0) return
  const suggestion = `${size.width + (size.width % 2)}x${size.height + (size.height % 2)}`
  throw new EngineError(
    'COMPOSITION_INVALID',
    `${plugin.name} needs an even width and height, but the composition is ${size.width}x${size.height} (odd ${odd.join(' and ')}): ` +
      `set data-width/data-height to an even size such as ${suggestion}, or render a format without this limit (mov, webm, png-sequence)`,
    {format: plugin.name, width: size.width, height: size.height},
  )
}
