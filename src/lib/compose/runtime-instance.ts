/**
 * Compile gives each inlined sub-composition host an instance id; the in-page runtime looks the
 * instance's variables up by it. Both sides read these from here, so compile does not depend on
 * the runtime's config.
 */
export interface RuntimeInstance {
  compositionId: string
  /** Resolved variables for this instance (sub-composition defaults < host data-variable-values). */
  variables: Record<string, unknown>
}

/** Attribute compile sets on each sub-composition host; its value keys `RuntimeConfig.instances`. */
export const INSTANCE_ATTRIBUTE = 'data-engine-instance'
