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
  browser: Browser
  clock: FrameClock
}

/** One browser process for one worker, ended when the worker is done: what a single render uses. */
export async function launchLease(choice: BrowserChoice, signal?: AbortSignal): Promise<BrowserLease> {
  const browser = await launchBrowser(choice, {signal})
  return {browser, clock: new FrameClock(), release: () => closeBrowser(browser)}
}

/**
 * Keeps browser processes warm between renders (batch rows, queued server renders): a worker takes
 * an idle process of the same kind instead of launching one, and gives it back when it is done.
 * A process that failed or lost its connection is never reused.
 */
export class BrowserPool {
  private readonly idle = new Map<string, Idle[]>()
  private readonly open = new Set<Browser>()
  private closed = false

  async acquire(choice: BrowserChoice, signal?: AbortSignal): Promise<BrowserLease> {
    const key = poolKey(choice)
    let entry = this.idle.get(key)?.pop()
    while (entry && !entry.browser.connected) {
      this.open.delete(entry.browser)
      entry = this.idle.get(key)?.pop()
    }
    if (!entry) {
      entry = {browser: await launchBrowser(choice, {signal}), clock: new FrameClock()}
      this.open.add(entry.browser)
    }
    const {browser, clock} = entry
    return {
      browser,
      clock,
      release: async (healthy) => {
        if (healthy && !this.closed && browser.connected) {
          const list = this.idle.get(key) ?? []
          list.push({browser, clock})
          this.idle.set(key, list)
          return
        }
        this.open.delete(browser)
        await closeBrowser(browser)
      },
    }
  }

  /** Ends every process, idle or lent; lent ones are ended when their worker releases them too. */
  async close(): Promise<void> {
    this.closed = true
    const browsers = [...this.open]
    this.open.clear()
    this.idle.clear()
    await Promise.all(browsers.map((browser) => closeBrowser(browser)))
  }
}

function poolKey(choice: BrowserChoice): string {
  return `${choice.executablePath}|${choice.beginFrame}|${choice.gpu}|${choice.profile?.name ?? ''}|${choice.deviceScaleFactor ?? 1}`
}
