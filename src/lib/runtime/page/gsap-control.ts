export interface GsapChild {
  startTime(): number
  startTime(value: number): unknown
}

export interface GsapTimelineLike {
  totalTime(time: number, suppressEvents?: boolean): unknown
  pause(): unknown
  paused(): boolean
  autoRemoveChildren?: boolean
  getChildren?(nested: boolean, tweens: boolean, timelines: boolean): GsapChild[]
}

export interface GsapLike {
  globalTimeline?: GsapTimelineLike
  ticker?: {lagSmoothing?(threshold: number): unknown}
}

/**
 * Takes control of GSAP's global timeline (where plain `gsap.to()` tweens live) the moment GSAP
 * installs itself as `window.gsap`, before any page script creates a tween:
 * - paused, so only seeks move it and every load-time tween starts at 0;
 * - `autoRemoveChildren` off, so a completed tween stays and a backwards seek can rewind it;
 * - lag smoothing off, so the ticker never squashes a long jump between seeks.
 */
export class GsapControl {
  private current: GsapLike | undefined

  install(win: Window): void {
    let stored: unknown = (win as unknown as {gsap?: unknown}).gsap
    Object.defineProperty(win, 'gsap', {
      configurable: true,
      enumerable: true,
      get: () => stored,
      set: (value: unknown) => {
        stored = value
        this.adopt(value)
      },
    })
    this.adopt(stored)
  }

  /**
   * Runs `fn` and returns the tweens and timelines it added to the global timeline, so that those a
   * sub-composition script creates can be moved to its instance's start.
   */
  collectNew(fn: () => void): GsapChild[] {
    const global = this.current?.globalTimeline
    const before = new Set(global?.getChildren?.(false, true, true))
    fn()
    const after = this.current?.globalTimeline?.getChildren?.(false, true, true) ?? []
    return after.filter((child) => !before.has(child))
  }

  /** Moves GSAP's global timeline to `seconds` (a no-op without GSAP). */
  seek(seconds: number): void {
    this.current?.globalTimeline?.totalTime(seconds, false)
  }

  private adopt(value: unknown): void {
    const gsap = value as GsapLike | undefined
    const global = gsap?.globalTimeline
    if (!global || gsap === this.current) return
    this.current = gsap
    global.autoRemoveChildren = false
    if (!global.paused()) global.pause()
    gsap.ticker?.lagSmoothing?.(0)
  }
}
