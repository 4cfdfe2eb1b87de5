import {VIRTUAL_EPOCH_MS} from '../page-protocol.js'

type TimerHandler = ((...args: unknown[]) => unknown) | string

interface Timer {
  id: number
  due: number
  /** Creation order: timers due at the same time fire in the order they were set. */
  order: number
  handler: TimerHandler
  args: unknown[]
  /** Repeat period in ms for setInterval. */
  period?: number
  nesting: number
}

/** HTML's timer clamping: deeply nested timers wait at least 4 ms, so a self-rearming 0 ms timer still advances time. */
const NESTING_LEVEL_BEFORE_CLAMP = 5
const CLAMPED_DELAY_MS = 4
/** A seek that fires more timer callbacks than this is stuck in a loop. */
const MAX_CALLBACKS_PER_ADVANCE = 1_000_000

/**
 * Virtual time for the page, in milliseconds from the start of the composition. Nothing reads the
 * wall clock: time moves only when a seek moves it.
 *
 * Timer semantics: a seek to t fires every pending timer due at or before t, in due order, with
 * the clock set to each timer's due time while it runs (so `Date.now()` inside reads its due time).
 * Timers are one-shot side effects: seeking backwards fires nothing and undoes nothing (see
 * `canRewindTo`), and timers due after t stay pending. `requestAnimationFrame` callbacks run once
 * per seek.
 */
export class VirtualClock {
  nowMs = 0
  private readonly timers = new Map<number, Timer>()
  private frameCallbacks = new Map<number, FrameRequestCallback>()
  private nextTimerId = 1
  private nextFrameId = 1
  private order = 0
  private currentNesting = 0
  private latestFiredDueMs = 0
  /**
   * Called with each timer's due time before it fires, so whatever the timer creates (a GSAP
   * tween, say) starts at that time, however far the seek jumps.
   */
  beforeTimer: (dueMs: number) => void = () => {}

  constructor(private readonly report: (error: unknown) => void) {}

  setTimer(handler: TimerHandler, delay: unknown, args: unknown[], repeat: boolean): number {
    const nesting = this.currentNesting + 1
    let ms = Math.max(0, Number(delay) || 0)
    if (nesting > NESTING_LEVEL_BEFORE_CLAMP && ms < CLAMPED_DELAY_MS) ms = CLAMPED_DELAY_MS
    const id = this.nextTimerId++
    this.timers.set(id, {id, due: this.nowMs + ms, order: this.order++, handler, args, period: repeat ? ms : undefined, nesting})
    return id
  }

  clearTimer(id: unknown): void {
    this.timers.delete(Number(id))
  }

  requestFrame(callback: FrameRequestCallback): number {
    const id = this.nextFrameId++
    this.frameCallbacks.set(id, callback)
    return id
  }

  cancelFrame(id: unknown): void {
    this.frameCallbacks.delete(Number(id))
  }

  /**
   * Whether a page at `ms` would look the same as a fresh page seeked there: not once a timer due
   * after `ms` has fired, since what it did stays done.
   */
  canRewindTo(ms: number): boolean {
    return ms >= this.latestFiredDueMs
  }

  hasTimersDueBy(ms: number): boolean {
    for (const timer of this.timers.values()) if (timer.due <= ms) return true
    return false
  }

  /** Fires the timers due by `targetMs` (including ones they set), then leaves the clock at `targetMs`. */
  advanceTo(targetMs: number): void {
    for (let fired = 0; ; fired++) {
      if (fired >= MAX_CALLBACKS_PER_ADVANCE) {
        this.report(new Error(`timers kept firing: more than ${MAX_CALLBACKS_PER_ADVANCE} callbacks before ${targetMs} ms of virtual time`))
        break
      }
      const timer = this.nextDue(targetMs)
      if (!timer) break
      this.nowMs = timer.due
      this.latestFiredDueMs = Math.max(this.latestFiredDueMs, timer.due)
      this.beforeTimer(timer.due)
      if (timer.period === undefined) this.timers.delete(timer.id)
      else {
        const period = timer.nesting >= NESTING_LEVEL_BEFORE_CLAMP ? Math.max(timer.period, CLAMPED_DELAY_MS) : timer.period
        timer.due += period
        timer.order = this.order++
        timer.nesting++
      }
      this.run(timer)
    }
    this.nowMs = targetMs
  }

  /** Runs the animation frame callbacks registered before this call; ones they register wait for the next seek. */
  flushFrames(): void {
    const callbacks = this.frameCallbacks
    if (callbacks.size === 0) return
    this.frameCallbacks = new Map()
    const timestamp = this.nowMs
    for (const callback of callbacks.values()) {
      try {
        callback(timestamp)
      } catch (error) {
        this.report(error)
      }
    }
  }

  private nextDue(targetMs: number): Timer | undefined {
    let next: Timer | undefined
    for (const timer of this.timers.values()) {
      if (timer.due > targetMs) continue
      if (!next || timer.due < next.due || (timer.due === next.due && timer.order < next.order)) next = timer
    }
    return next
  }

  private run(timer: Timer): void {
    const outer = this.currentNesting
    this.currentNesting = timer.nesting
    try {
      if (typeof timer.handler === 'function') timer.handler(...timer.args)
      // String handlers are part of the timer API; indirect eval runs them in global scope as the browser does.
      else (0, eval)(timer.handler)
    } catch (error) {
      this.report(error)
    } finally {
      this.currentNesting = outer
    }
  }
}

/** Replaces the page's clocks, timers and animation frames with `clock`. Runs before any page script. */
export function installVirtualClock(win: Window & typeof globalThis, clock: VirtualClock): void {
  const RealDate = win.Date
  const VirtualDate = function (this: unknown, ...args: unknown[]) {
    if (!new.target) return new RealDate(VIRTUAL_EPOCH_MS + clock.nowMs).toString()
    return Reflect.construct(RealDate, args.length === 0 ? [VIRTUAL_EPOCH_MS + clock.nowMs] : args, new.target)
  } as unknown as DateConstructor
  Object.defineProperties(VirtualDate, {
    prototype: {value: RealDate.prototype},
    now: {value: () => VIRTUAL_EPOCH_MS + clock.nowMs, writable: true, configurable: true},
    parse: {value: RealDate.parse, writable: true, configurable: true},
    UTC: {value: RealDate.UTC, writable: true, configurable: true},
  })
  win.Date = VirtualDate

  win.performance.now = () => clock.nowMs

  win.setTimeout = ((handler: TimerHandler, delay?: number, ...args: unknown[]) =>
    clock.setTimer(handler, delay, args, false)) as typeof win.setTimeout
  win.setInterval = ((handler: TimerHandler, delay?: number, ...args: unknown[]) =>
    clock.setTimer(handler, delay, args, true)) as typeof win.setInterval
  win.clearTimeout = (id) => clock.clearTimer(id)
  win.clearInterval = (id) => clock.clearTimer(id)
  win.requestAnimationFrame = (callback) => clock.requestFrame(callback)
  win.cancelAnimationFrame = (id) => clock.cancelFrame(id)
  win.requestIdleCallback = (callback) =>
    clock.setTimer(() => callback({didTimeout: false, timeRemaining: () => 50}), 0, [], false)
  win.cancelIdleCallback = (id) => clock.clearTimer(id)
}
