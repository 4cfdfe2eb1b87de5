import {ProtocolError, TimeoutError, type Protocol} from 'puppeteer-core'
import {abortReason} from '../browser/abort-reason.js'
import type {BrowserChoice} from '../browser/browser-choice.js'
import {launchLease, type BrowserLease, type BrowserPool} from '../browser/browser-pool.js'
import {EngineError} from '../errors/engine-error.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import {ENGINE_GLOBAL, type PageErrorRecord, type ReadyReport, type SeekResult} from '../runtime/page-protocol.js'
import type {CallLimit} from './page-connection.js'
import {loadCompositionPage, type LoadedPage} from './load-composition-page.js'
import {isNoImageError} from './frame-capturer.js'
import {pageError} from './page-error.js'
import {documentNameOf, planPageRequests} from './plan-page-requests.js'
import type {PageRequests} from '../sandbox/page-requests.js'

export const DEFAULT_READY_TIMEOUT_MS = 30_000
export const DEFAULT_FRAME_TIMEOUT_MS = 60_000
const TAB_CLOSE_TIMEOUT_MS = 5000
/** Fresh pages one range may load when a page stops returning images. */
const MAX_PAGE_RELOADS = 2

export interface CaptureWorkerOptions {
  browser: BrowserChoice
  /** Take a warm browser process from here (and give it back on close) instead of launching one. */
  pool?: BrowserPool
  signal?: AbortSignal
  /** How long the page may take to load its fonts, images and scripts (default 30 s). */
  readyTimeoutMs?: number
  /** How long one frame (seek + capture) may take (default 60 s). */
  frameTimeoutMs?: number
  /**
   * The render's request policy, shared by its pages so that each remote URL is fetched once and
   * each blocked one reported once; without it, the plan's policy with nothing reported.
   */
  requests?: PageRequests
}

export interface CaptureStats {
  /** Frames handed to onFrame so far. */
  frames: number
  /** Of those, frames that reused the previous image (begin-frame capture saw no damage). */
  reusedFrames: number
}

export type FrameSink = (index: number, image: Buffer) => Promise<void> | void

export interface CaptureWorker {
  /** True when frames are drawn with HeadlessExperimental.beginFrame; false with screenshots. */
  readonly beginFrame: boolean
  /** What the page reported when it became ready (timing findings, clip count). */
  readonly ready: ReadyReport
  readonly stats: CaptureStats
  /**
   * Renders `range` in order and hands each image to `onFrame`, in frame order; the next frame is
   * captured while `onFrame` of the previous one is still running. Ranges may come in any order.
   */
  captureRange(range: FrameRange, onFrame: FrameSink): Promise<void>
  /** Evaluates an expression in the page (awaiting promises) and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>
  close(): Promise<void>
}

/**
 * Starts a browser process for one worker and loads the composition in it once. The worker can
 * then render any frames, in any order. `close()` must be called (it is safe to call twice); an
 * abort of `signal` kills the browser at once and fails the pending call with CANCELLED.
 */
export async function openCaptureWorker(plan: RenderPlan, options: CaptureWorkerOptions): Promise<CaptureWorker> {
  const {signal} = options
  if (signal?.aborted) throw abortReason(signal)
  const lease = options.pool ? await options.pool.acquire(options.browser, signal) : await launchLease(options.browser, signal)
  let page: LoadedPage
  try {
    page = await loadPage(plan, lease, options)
  } catch (error) {
    await lease.release(false)
    throw signal?.aborted ? abortReason(signal) : asEngineError(error, 'while opening the composition')
  }
  return new BrowserCaptureWorker(plan, page, lease, options)
}

function loadPage(plan: RenderPlan, lease: BrowserLease, options: CaptureWorkerOptions): Promise<LoadedPage> {
  return loadCompositionPage(lease.browser, plan, {
    clock: lease.clock,
    beginFrame: options.browser.beginFrame,
    readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
    documentName: documentNameOf(plan),
    requests: options.requests ?? planPageRequests(plan, {signal: options.signal}),
    signal: options.signal,
  })
}

class BrowserCaptureWorker implements CaptureWorker {
  readonly beginFrame: boolean
  readonly ready: ReadyReport
  private closed: Promise<void> | undefined
  private readonly frameTimeoutMs: number
  private frames = 0
  private reusedOnEarlierPages = 0
  private capturing = false

  constructor(
    private readonly plan: RenderPlan,
    private page: LoadedPage,
    private readonly lease: BrowserLease,
    private readonly options: CaptureWorkerOptions,
  ) {
    this.beginFrame = options.browser.beginFrame
    this.ready = page.report
    this.frameTimeoutMs = options.frameTimeoutMs ?? DEFAULT_FRAME_TIMEOUT_MS
  }

  get stats(): CaptureStats {
    return {frames: this.frames, reusedFrames: this.reusedOnEarlierPages + this.page.capturer.reusedFrames}
  }

  async captureRange(range: FrameRange, onFrame: FrameSink): Promise<void> {
    // One page has one clock: two ranges at once would seek it back and forth under each other.
    if (this.capturing) throw new EngineError('INTERNAL', 'captureRange called while another range of the same worker is still capturing')
    this.capturing = true
    try {
      await this.captureFrames(range, onFrame)
    } catch (error) {
      throw this.options.signal?.aborted ? abortReason(this.options.signal) : asEngineError(error, `while capturing frames ${range.start}-${range.end - 1}`)
    } finally {
      this.capturing = false
    }
  }

  private async captureFrames(range: FrameRange, onFrame: FrameSink): Promise<void> {
    let delivering: Promise<void> = Promise.resolve()
    let reloads = 0
    for (let index = range.start; index < range.end; index++) {
      if (this.options.signal?.aborted) throw abortReason(this.options.signal)
      const limit = this.frameLimit(index)
      const seek = await this.evaluateWithLimit<{error: SeekResult; loadedAssets: boolean}>(
        `window.${ENGINE_GLOBAL}.seek(${index}).then((error) => ({error, loadedAssets: window.${ENGINE_GLOBAL}.seekLoadedAssets()}))`,
        limit,
      )
      if (seek.error) throw pageError(seek.error, this.plan, documentNameOf(this.plan))
      let image: Buffer
      try {
        image = await this.page.capturer.capture(limit, {fresh: seek.loadedAssets})
      } catch (error) {
        if (!isNoImageError(error) || reloads >= MAX_PAGE_RELOADS) throw error
        // A page occasionally stops drawing (seen on loaded machines): a fresh page seeking straight
        // to this frame shows exactly what this one should have, since any frame can follow any frame.
        reloads++
        await this.reloadPage()
        index--
        continue
      }
      await delivering
      this.frames++
      delivering = Promise.resolve(onFrame(index, image))
      delivering.catch(() => {})
    }
    await delivering
    // Errors thrown after the last seek (a rejection settling late) still fail the range.
    const late = await this.evaluate<PageErrorRecord | null>(`window.${ENGINE_GLOBAL}.errors()[0] ?? null`)
    if (late) throw pageError(late, this.plan, documentNameOf(this.plan))
  }

  evaluate<T>(expression: string): Promise<T> {
    return this.evaluateWithLimit<T>(expression, {
      timeoutMs: this.frameTimeoutMs,
      onTimeout: () => new EngineError('PAGE_TIMEOUT', `the page did not answer within ${this.frameTimeoutMs / 1000} s (evaluating ${expression.slice(0, 80)})`),
    })
  }

  private async reloadPage(): Promise<void> {
    this.reusedOnEarlierPages += this.page.capturer.reusedFrames
    this.page.connection.dispose()
    await withTimeout(this.page.closeTab(), TAB_CLOSE_TIMEOUT_MS)
    this.page = await loadPage(this.plan, this.lease, this.options)
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      const healthy = !this.page.connection.error && !this.options.signal?.aborted
      this.page.connection.dispose()
      // A pooled process goes back only with its tab closed; if even that fails, it is ended.
      const tabClosed = healthy && (await withTimeout(this.page.closeTab(), TAB_CLOSE_TIMEOUT_MS))
      await this.lease.release(tabClosed)
    })()
    return this.closed
  }

  private frameLimit(index: number): CallLimit {
    return {
      timeoutMs: this.frameTimeoutMs,
      onTimeout: () =>
        new EngineError(
          'PAGE_TIMEOUT',
          `frame ${index} took longer than ${this.frameTimeoutMs / 1000} s to render (a script stuck in a loop, or an image or font that never loads?)`,
          {frame: index, timeoutMs: this.frameTimeoutMs},
        ),
    }
  }

  private async evaluateWithLimit<T>(expression: string, limit: CallLimit): Promise<T> {
    const response: Protocol.Runtime.EvaluateResponse = await this.page.connection.send(
      'Runtime.evaluate',
      {expression, awaitPromise: true, returnByValue: true},
      limit,
    )
    if (response.exceptionDetails) {
      const details = response.exceptionDetails
      throw new EngineError('PAGE_ERROR', details.exception?.description ?? details.text, {expression, details})
    }
    return response.result.value as T
  }
}

/** A DevTools protocol failure becomes BROWSER_FAILED saying what was going on; anything else (the sink's own errors) passes through. */
function asEngineError(error: unknown, doing: string): unknown {
  if (!(error instanceof ProtocolError || error instanceof TimeoutError)) return error
  return new EngineError('BROWSER_FAILED', `the browser failed ${doing}: ${error.message}`, undefined, {cause: error})
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
