import type {CompiledComposition} from '../compose/compile-composition.js'
import type {CompiledCaptions} from '../compose/compile-captions.js'
import type {RuntimeInstance} from '../compose/runtime-instance.js'
import type {RuntimeFonts} from '../fonts/font-plan.js'
import type {RuntimeMedia} from './runtime-media.js'
import type {Fps} from '../plan/fps.js'
import {imageValues} from '../variables/image-variable-values.js'

/**
 * What the in-page runtime (`window.__engine`) is told before any page script runs. It is plain
 * JSON: the Node side builds it from the compiled composition and the render options, and the
 * page reads it from `window.__ENGINE_CONFIG__`.
 */
export interface RuntimeConfig {
  /** The root composition's id (`data-composition-id` on the root element). */
  compositionId: string
  /** Frame rate of the render; the page derives every time from it, never from a constant. */
  fps: Fps
  /** Root duration in seconds: the source's data-duration, or the length of its registered timelines. */
  durationSeconds?: number
  width: number
  height: number
  /** Resolved variables of the root composition (defaults < --variables). */
  variables: Record<string, unknown>
  /**
   * One entry per inlined sub-composition instance, keyed by the value of the
   * `data-engine-instance` attribute that compile puts on the host element.
   */
  instances: Record<string, RuntimeInstance>
  /** Seed for the per-frame deterministic `Math.random` / `crypto.getRandomValues`. */
  seed: number
  /**
   * The composition is shown inside a frame of another page (the preview). The runtime then
   * installs there too; otherwise it installs only in the top document, so that frames nested in
   * a composition keep their own clocks.
   */
  embedded?: boolean
  /** Probed `<video>`/`<audio>` sources and extracted video frames (set by the render's media stage). */
  media?: RuntimeMedia[]
  /** Faces the engine serves (bundled, cached, generic) and those to load before the first frame. */
  fonts?: RuntimeFonts
  /**
   * The cues of each captions element, by the index compile wrote into its `data-engine-captions`;
   * the runtime writes the text of the cues on screen at each frame into the element.
   */
  captions?: CompiledCaptions[]
  /** The root's `image` variable values (URLs or project paths, as written): decoded before the first frame. */
  images?: string[]
}

export const RUNTIME_CONFIG_GLOBAL = '__ENGINE_CONFIG__'

/** Same seed everywhere a composition is shown, so seeded randomness gives the same frames. */
export const DEFAULT_SEED = 1

/** The runtime config of a compiled composition: the one place render and preview build it. */
export function runtimeConfig(
  compiled: CompiledComposition,
  options: {fps: Fps; seed?: number; embedded?: boolean},
): RuntimeConfig {
  return {
    compositionId: compiled.compositionId,
    fps: options.fps,
    ...(compiled.durationSeconds !== undefined && {durationSeconds: compiled.durationSeconds}),
    width: compiled.width,
    height: compiled.height,
    variables: compiled.variables,
    instances: compiled.instances,
    seed: options.seed ?? DEFAULT_SEED,
    fonts: compiled.fonts.runtime,
    ...(compiled.captions && {captions: compiled.captions}),
    ...(options.embedded ? {embedded: true} : {}),
    ...runtimeImages(compiled),
  }
}

function runtimeImages(compiled: CompiledComposition): Pick<RuntimeConfig, 'images'> {
  const images = imageValues(compiled.declarations, compiled.variables).map((image) => image.value)
  return images.length > 0 ? {images} : {}
}
