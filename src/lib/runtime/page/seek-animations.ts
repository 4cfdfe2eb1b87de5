import {INSTANCE_ATTRIBUTE} from '../../compose/runtime-instance.js'
import type {GsapControl} from './gsap-control.js'
import type {TimelineRegistry} from './timeline-registry.js'

/** Absolute start (seconds) of a sub-composition instance by key; 0 for unknown keys. */
export type InstanceStart = (instanceKey: string | undefined) => number

/**
 * Drives everything that animates by time: GSAP (the global timeline for plain tweens, and every
 * registered timeline at its instance's local time) and every CSS animation, CSS transition and
 * Web Animation. All of them are a pure function of t, so any frame renders the same whatever was
 * rendered before it.
 */
export class AnimationSeeker {
  /**
   * Animations seen so far. `document.getAnimations()` drops an animation once it has finished
   * without fill, so a backwards seek must reach it through this set.
   */
  private readonly known = new Set<Animation>()
  private readonly instanceOfTarget = new WeakMap<Element, string | undefined>()

  constructor(
    private readonly win: Window & typeof globalThis,
    private readonly gsap: GsapControl,
    private readonly registry: TimelineRegistry,
    private readonly instanceStart: InstanceStart,
  ) {}

  seekGsap(seconds: number): void {
    this.gsap.seek(seconds)
    this.seekTimelines(seconds)
  }

  /** Registered timelines at their instance's local time (never before 0). */
  seekTimelines(seconds: number): void {
    for (const {instanceKey, timeline} of this.registry.entries) {
      if (timeline.paused && timeline.pause && !timeline.paused()) timeline.pause()
      const local = Math.max(0, seconds - this.instanceStart(instanceKey))
      timeline.totalTime(local, false)
      // A timeline still at 0 renders nothing for a seek to 0, so a set() at its start would be
      // missing from the first frame although a browser playing it shows it from the first tick.
      if (local === 0) timeline.render?.(0, false, true)
    }
  }

  /** CSS animations, transitions and Web Animations: paused, at local time (relative to their instance's start). */
  seekDocumentAnimations(seconds: number): void {
    for (const animation of this.win.document.getAnimations()) this.known.add(animation)
    for (const animation of this.known) {
      if (animation.playState === 'idle') {
        // Cancelled (its CSS rule went away, or a script cancelled it): leave it dead.
        this.known.delete(animation)
        continue
      }
      const target = animation.effect instanceof KeyframeEffect ? animation.effect.target : null
      const local = seconds - (target ? this.instanceStart(this.instanceOf(target)) : 0)
      if (animation.playState !== 'paused') animation.pause()
      animation.currentTime = local * 1000
    }
  }

  private instanceOf(element: Element): string | undefined {
    if (this.instanceOfTarget.has(element)) return this.instanceOfTarget.get(element)
    const key = element.closest(`[${INSTANCE_ATTRIBUTE}]`)?.getAttribute(INSTANCE_ATTRIBUTE) ?? undefined
    this.instanceOfTarget.set(element, key)
    return key
  }
}
