import type {Fps} from '../plan/fps.js'

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
  /** Root duration in seconds, read from the source at compile time. */
  durationSeconds: number
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
}

export interface RuntimeInstance {
  compositionId: string
  /** Resolved variables for this instance (sub-composition defaults < host data-variable-values). */
  variables: Record<string, unknown>
}

export const RUNTIME_CONFIG_GLOBAL = '__ENGINE_CONFIG__'
/** Attribute compile sets on each sub-composition host; its value keys `RuntimeConfig.instances`. */
export const INSTANCE_ATTRIBUTE = 'data-engine-instance'
