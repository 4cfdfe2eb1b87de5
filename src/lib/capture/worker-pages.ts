import type {BrowserLease} from '../browser/browser-pool.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {endSpan, spanStart} from '../trace/timeline.js'
import {EngineError} from '../errors/engine-error.js'
import {BeginFrameGate} from './begin-frame-gate.js'
import {BeginFrameCapturer} from './frame-capturer.js'
import {loadCompositionPage, type LoadedPage, type LoadPageOptions} from './load-composition-page.js'
import type {CallLimit} from './page-connection.js'

const TAB_CLOSE_TIMEOUT_MS = 5000
const SETTLE_LIMIT: CallLimit = {
  timeoutMs: 10_000,
  onTimeout: () => new EngineError('BROWSER_FAILED', 'the browser did not draw a frame of a page it had just loaded'),
}

/** How each page of a worker is loaded (the gate is the worker's own). */
export type PageSettings = Omit<LoadPageOptions, 'gate' | 'trace'>

/**
 * The pages of one worker's browser process, all showing the same composition, and how they are
 * opened, replaced and closed. Their begin-frames share one gate (see BeginFrameGate).
 */
export class WorkerPages {
  readonly list: LoadedPage[] = []
  /** Frames reused by pages that were replaced or closed. */
  reusedOnClosedPages = 0
  private readonly gate: BeginFrameGate
  /** A page that failed to load may have left its tab behind: the process is not pooled then. */
  private strayTab = false

  constructor(
    readonly worker: number,
    private readonly plan: RenderPlan,
    private readonly lease: BrowserLease,
    private readonly settings: PageSettings,
  ) {
    this.gate = new BeginFrameGate(lease.clock)
  }

  /**
   * Loads `count` pages at once. The first must load; a second that fails is left out (its tab may
   * remain, so the process is not pooled afterwards) and the worker captures with one page.
   */
  async open(count: number): Promise<void> {
    const loads = await Promise.allSettled(Array.from({length: count}, (_, page) => this.load(page)))
    const [first, ...more] = loads
    if (first.status === 'rejected') {
      await Promise.all(more.map((load) => (load.status === 'fulfilled' ? this.closeTab(load.value) : undefined)))
      throw first.reason
    }
    this.list.push(first.value)
    for (const load of more) {
      if (load.status === 'fulfilled') this.list.push(load.value)
      else this.strayTab = true
    }
    // A page that just became ready may still have a frame to draw (what its start-up scripts
    // changed). Drawn while the other page captures its first frame, it made that frame show the
    // page a step behind now and then; so each page draws its pending frame before capture starts.
    if (this.list.length > 1) {
      for (const page of this.list) if (page.capturer instanceof BeginFrameCapturer) await page.capturer.pump(SETTLE_LIMIT)
    }
  }

  /** Replaces a page that stopped drawing with a fresh one in the same place. */
  async replace(page: LoadedPage): Promise<LoadedPage> {
    const slot = this.list.indexOf(page)
    this.reusedOnClosedPages += page.capturer.reusedFrames
    await this.closeTab(page)
    const fresh = await this.load(slot)
    this.list[slot] = fresh
    return fresh
  }

  /** Closes every tab; true when all closed cleanly (the process can then be pooled). */
  async close(): Promise<boolean> {
    const healthy = !this.settings.signal?.aborted && !this.strayTab && this.list.every((page) => !page.connection.error)
    for (const page of this.list) page.connection.dispose()
    if (!healthy) return false
    const closed = await Promise.all(this.list.map((page) => withTimeout(page.closeTab(), TAB_CLOSE_TIMEOUT_MS)))
    return closed.every(Boolean)
  }

  private closeTab(page: LoadedPage): Promise<boolean> {
    page.connection.dispose()
    return withTimeout(page.closeTab(), TAB_CLOSE_TIMEOUT_MS)
  }

  private async load(page: number): Promise<LoadedPage> {
    const started = spanStart()
    try {
      const loaded = await loadCompositionPage(this.lease.browser, this.plan, {...this.settings, gate: this.gate, trace: {worker: this.worker, page}})
      endSpan('page-load', started, {worker: this.worker, page})
      return loaded
    } catch (error) {
      endSpan('page-load', started, {worker: this.worker, page, failed: true})
      throw error
    }
  }
}

/** True when `work` settles successfully within `ms`. */
async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
  try {
    return await Promise.race([work.then(() => true, () => false), timeout])
  } finally {
    clearTimeout(timer)
  }
}
