import type {Browser} from 'puppeteer-core'
import type {BrowserChoice} from './browser-choice.js'
import {closeBrowser, launchBrowser} from './launch-browser.js'

/**
 * Begin-frame time of one browser process. Its ticks must only go up for the life of the process
 * (a restarted counter stalls the page), so every page the process ever shows shares this clock.
 */
export class FrameClock {
  private ticks = 0

  advance(intervalMs: number): number {
    this.ticks += intervalMs
    return this.ticks
  }
}

/** A browser process lent to one capture worker. */
export interface BrowserLease {
  browser: Browser
  clock: FrameClock
  /** Gives the process back (healthy) or ends it (after a failure, or when nobody pools it). */
  release(healthy: boolean): Promise<void>
}

interface Idle {
  key: string
  browser: Browser
  clock: FrameClock
  timer: NodeJS.Timeout
}

/** One browser process for one worker, ended when the worker is done: what a single render uses. */
export async function launchLease(choice: BrowserChoice, signal?: AbortSignal): Promise<BrowserLease> {
  const browser = await launchBrowser(choice, {signal})
  return {browser, clock: new FrameClock(), release: () => closeBrowser(browser)}
}

export interface BrowserPoolOptions {
  /** Idle processes kept at most; past it the least recently used is ended (default 8). */
  maxIdle?: number
  /** An idle process unused this long is ended (default 60 s). */
  idleTimeoutMs?: number
}

export const DEFAULT_POOL_OPTIONS = {maxIdle: 8, idleTimeoutMs: 60_000}

/**
 * Keeps browser processes warm between renders (batch rows, queued server renders): a worker takes
 * an idle process of the same kind instead of launching one, and gives it back when it is done.
 * A process that failed or lost its connection is never reused. Idle processes are bounded, in
 * number (the least recently used goes first) and in time, so that a long-running server holding
 * renders of many kinds does not keep one process per kind for ever.
 */
export class BrowserPool {
  /** Least recently used first. */
  private idle: Idle[] = []
  private readonly open = new Set<Browser>()
  private closed = false
  private readonly maxIdle: number
  private readonly idleTimeoutMs: number

  constructor(options: BrowserPoolOptions = {}) {
    this.maxIdle = options.maxIdle ?? DEFAULT_POOL_OPTIONS.maxIdle
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_POOL_OPTIONS.idleTimeoutMs
  }

  /** Processes alive now, lent or idle. */
  get size(): number {
    return this.open.size
  }

  /** Processes waiting for their next worker. */
  get idleCount(): number {
    return this.idle.length
  }

  async acquire(choice: BrowserChoice, signal?: AbortSignal): Promise<BrowserLease> {
    const key = poolKey(choice)
    let entry = this.takeIdle(key)
    if (!entry) {
      const browser = await launchBrowser(choice, {signal})
      this.open.add(browser)
      entry = {browser, clock: new FrameClock()}
    }
    const {browser, clock} = entry
    return {
      browser,
      clock,
      release: async (healthy) => {
        if (healthy && !this.closed && browser.connected && this.maxIdle > 0) return this.putIdle({key, browser, clock})
        await this.end(browser)
      },
    }
  }

  /** Ends every process, idle or lent; lent ones are ended when their worker releases them too. */
  async close(): Promise<void> {
    this.closed = true
    for (const entry of this.idle) clearTimeout(entry.timer)
    this.idle = []
    const browsers = [...this.open]
    this.open.clear()
    await Promise.all(browsers.map((browser) => closeBrowser(browser)))
  }

  /** The most recently used idle process of this kind that is still connected. */
  private takeIdle(key: string): {browser: Browser; clock: FrameClock} | undefined {
    for (let index = this.idle.length - 1; index >= 0; index--) {
      const entry = this.idle[index]
      if (entry.key !== key) continue
      this.idle.splice(index, 1)
      clearTimeout(entry.timer)
      if (entry.browser.connected) return entry
      this.open.delete(entry.browser)
    }
    return undefined
  }

  private async putIdle(entry: Omit<Idle, 'timer'>): Promise<void> {
    const timer = setTimeout(() => void this.evict(entry.browser), this.idleTimeoutMs)
    // An idle browser is no reason to keep the process alive.
    timer.unref()
    this.idle.push({...entry, timer})
    const over = this.idle.length - this.maxIdle
    if (over > 0) await Promise.all(this.idle.slice(0, over).map((old) => this.evict(old.browser)))
  }

  private async evict(browser: Browser): Promise<void> {
    const index = this.idle.findIndex((entry) => entry.browser === browser)
    if (index === -1) return
    clearTimeout(this.idle[index].timer)
    this.idle.splice(index, 1)
    await this.end(browser)
  }

  private async end(browser: Browser): Promise<void> {
    this.open.delete(browser)
    await closeBrowser(browser)
  }
}

/**
 * Processes are interchangeable when launched alike. A begin-frame process draws at its launch
 * scale factor only, so the scale is part of its kind; a screenshot process takes each page's own.
 */
function poolKey(choice: BrowserChoice): string {
  const scale = choice.beginFrame ? (choice.deviceScaleFactor ?? 1) : ''
  return `${choice.executablePath}|${choice.beginFrame}|${choice.gpu}|${choice.profile?.name ?? ''}|${scale}`
}
