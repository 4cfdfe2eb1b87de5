import type {Protocol} from 'puppeteer-core'
import {ProtocolError, TimeoutError} from '../vendor/puppeteer.js'
import {abortReason} from '../browser/abort-reason.js'
import type {BrowserChoice} from '../browser/browser-choice.js'
import {launchLease, type BrowserLease, type BrowserPool} from '../browser/browser-pool.js'
import {EngineError} from '../errors/engine-error.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import {ENGINE_GLOBAL, type PageErrorRecord, type ReadyReport, type SeekResult} from '../runtime/page-protocol.js'
import {endSpan, spanStart} from '../trace/timeline.js'
import type {CallLimit} from './page-connection.js'
import type {LoadedPage} from './load-composition-page.js'
import {isNoImageError} from './frame-capturer.js'
import {pageError} from './page-error.js'
import {documentNameOf, planPageRequests} from './plan-page-requests.js'
import type {PageRequests} from '../sandbox/page-requests.js'
import {WorkerPages} from './worker-pages.js'

export const DEFAULT_READY_TIMEOUT_MS = 30_000
export const DEFAULT_FRAME_TIMEOUT_MS = 60_000
/** Fresh pages one range may load when a page stops returning images. */
const MAX_PAGE_RELOADS = 2

export interface CaptureWorkerOptions {
  browser: BrowserChoice
  /** Take a warm browser process from here (and give it back on close) instead of launching one. */
  pool?: BrowserPool
  signal?: AbortSignal
  /** How long the page may take to load its fonts, images, scripts and holds (default: the plan's data-ready-timeout, else 30 s). */
  readyTimeoutMs?: number
  /** Under `--page-errors warn`: every uncaught error the pages recorded in a range, once the range is captured. */
  onPageErrors?: (errors: EngineError[]) => void
  /** How long one frame (seek + capture) may take (default 60 s). */
  frameTimeoutMs?: number
  /**
   * The render's request policy, shared by its pages so that each remote URL is fetched once and
   * each blocked one reported once; without it, the plan's policy with nothing reported.
   */
  requests?: PageRequests
  /**
   * Pages of the one browser process that take turns drawing frames (begin-frame capture only;
   * default 1). Every page seeks every frame, in order, so each page's scripts see exactly what a
   * single page would; with two, one page seeks while the other draws the previous frame and its
   * image is encoded and sent back.
   */
  pages?: 1 | 2
}

export interface CaptureStats {
  /** Frames handed to onFrame so far. */
  frames: number
  /** Of those, frames that reused the previous image (begin-frame capture saw no damage). */
  reusedFrames: number
  /** Pages that drew at least one of those frames. */
  pages: number
  /** Pages replaced by a fresh one after they stopped returning images. */
  reloadedPages: number
}

export type FrameSink = (index: number, image: Buffer) => Promise<void> | void

export interface CaptureWorker {
  /** Numbers the worker in this process's timeline (see trace/timeline.ts). */
  readonly id: number
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
  const id = ++openedWorkers
  const launched = spanStart()
  const lease = options.pool ? await options.pool.acquire(options.browser, signal) : await launchLease(options.browser, signal)
  endSpan('browser-launch', launched, {worker: id})
  const pages = new WorkerPages(id, plan, lease, {
    beginFrame: options.browser.beginFrame,
    readyTimeoutMs: options.readyTimeoutMs ?? (plan.readyTimeoutSeconds === undefined ? DEFAULT_READY_TIMEOUT_MS : plan.readyTimeoutSeconds * 1000),
    documentName: documentNameOf(plan),
    requests: options.requests ?? planPageRequests(plan, {signal}),
    signal,
  })
  try {
    await pages.open(options.browser.beginFrame ? (options.pages ?? 1) : 1)
  } catch (error) {
    await lease.release(false)
    throw signal?.aborted ? abortReason(signal) : asEngineError(error, 'while opening the composition')
  }
  return new BrowserCaptureWorker(plan, pages, lease, options)
}

/** Numbers the workers of this process, for the timeline. */
let openedWorkers = 0

/** The work of one page, in order: a step starts once the previous one has succeeded. */
class PageLane {
  last: Promise<unknown> = Promise.resolve()
  /** The last frame this page was given to seek: a frame retried after a page reload is not seeked twice. */
  followed: number | undefined
  /** Whether a seek since the page last drew loaded new assets (fonts, images). */
  loadedAssets = false

  queue<T>(step: () => Promise<T>): Promise<T> {
    const next = this.last.then(step)
    next.catch(() => {})
    this.last = next
    return next
  }
}

class BrowserCaptureWorker implements CaptureWorker {
  readonly id: number
  readonly beginFrame: boolean
  readonly ready: ReadyReport
  private closed: Promise<void> | undefined
  private readonly frameTimeoutMs: number
  private frames = 0
  private readonly usedPages = new Set<number>()
  private reloadedPages = 0
  private capturing = false

  constructor(
    private readonly plan: RenderPlan,
    private readonly pages: WorkerPages,
    private readonly lease: BrowserLease,
    private readonly options: CaptureWorkerOptions,
  ) {
    this.id = pages.worker
    this.beginFrame = options.browser.beginFrame
    this.ready = pages.list[0].report
    this.frameTimeoutMs = options.frameTimeoutMs ?? DEFAULT_FRAME_TIMEOUT_MS
  }

  get stats(): CaptureStats {
    const reused = this.pages.list.reduce((sum, page) => sum + page.capturer.reusedFrames, this.pages.reusedOnClosedPages)
    return {frames: this.frames, reusedFrames: reused, pages: this.usedPages.size, reloadedPages: this.reloadedPages}
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

  /**
   * Every page seeks every frame of the range in order; the pages take turns drawing them. Work on
   * one page runs in order (its lane), the begin-frames of all pages one at a time (the gate), and
   * each frame is issued before the previous one is awaited: while one page draws frame N and its
   * image is encoded and sent back, the other page seeks N and N + 1. Images are delivered in frame
   * order, each once the previous one's delivery has finished.
   */
  private async captureFrames(range: FrameRange, onFrame: FrameSink): Promise<void> {
    const lanes = this.pages.list.map(() => new PageLane())
    await this.restartPages(range.start)
    let delivering: Promise<void> = Promise.resolve()
    let pending: {index: number; drawer: number; image: Promise<Buffer>} | undefined
    let reloads = 0
    const deliver = async ({index, drawer, image}: NonNullable<typeof pending>) => {
      const captured = await image
      const waited = spanStart()
      await delivering
      endSpan('encoder-wait', waited, {worker: this.pages.worker, frame: index})
      this.frames++
      this.usedPages.add(drawer)
      delivering = Promise.resolve(onFrame(index, captured))
      delivering.catch(() => {})
    }
    try {
      // A page occasionally stops drawing (seen on loaded machines): a fresh page seeking straight
      // to the frame shows exactly what the old one should have. Returns the frame to go on from.
      const recover = async (error: unknown): Promise<number> => {
        if (!isNoImageError(error) || reloads >= MAX_PAGE_RELOADS) throw error
        reloads++
        this.reloadedPages++
        await Promise.allSettled(lanes.map((lane) => lane.last))
        lanes[pending!.drawer] = new PageLane()
        await this.pages.replace(this.pages.list[pending!.drawer])
        const resumeAt = pending!.index
        pending = undefined
        return resumeAt
      }
      // One step past the range delivers the last frame, with the same recovery as the others (a
      // still is nothing but a last frame).
      for (let index = range.start; index <= range.end; index++) {
        if (this.options.signal?.aborted) throw abortReason(this.options.signal)
        if (index === range.end) {
          try {
            if (pending) await deliver(pending)
          } catch (error) {
            index = (await recover(error)) - 1
            continue
          }
          break
        }
        const drawer = (index - range.start) % lanes.length
        for (const [page, lane] of lanes.entries()) {
          if (lane.followed !== undefined && lane.followed >= index) continue
          lane.followed = index
          lane.queue(() => this.seekOn(page, lane, index))
        }
        const image = lanes[drawer].queue(() => this.captureOn(drawer, lanes[drawer], index))
        try {
          if (pending) await deliver(pending)
          pending = {index, drawer, image}
        } catch (error) {
          index = (await recover(error)) - 1
        }
      }
      await delivering
    } finally {
      await Promise.allSettled(lanes.map((lane) => lane.last))
    }
    if (this.plan.pageErrors === 'warn') {
      await this.reportPageErrors()
      return
    }
    // Errors thrown after the last seek (a rejection settling late) still fail the range.
    for (const page of this.pages.list) {
      const late = await this.evaluateOn<PageErrorRecord | null>(page, `window.${ENGINE_GLOBAL}.errors()[0] ?? null`, this.evaluateLimit('the late error check'))
      if (late) throw pageError(late, this.plan, documentNameOf(this.plan))
    }
  }

  /** Hands every error the pages recorded so far to `onPageErrors` (the same error again after each range: the receiver keeps each once). */
  private async reportPageErrors(): Promise<void> {
    const errors: EngineError[] = []
    for (const page of this.pages.list) {
      const records = await this.evaluateOn<PageErrorRecord[]>(page, `window.${ENGINE_GLOBAL}.errors()`, this.evaluateLimit('the page error report'))
      errors.push(...records.map((record) => pageError(record, this.plan, documentNameOf(this.plan))))
    }
    if (errors.length > 0) this.options.onPageErrors?.(errors)
  }

  /**
   * Has every page draw one frame with its document hidden, which drops the layers the browser kept
   * from earlier frames (see LayerReset), and forget its last image. Each range then starts as on a
   * fresh page: a render split into ranges differently, among workers or Lambda chunks, draws every
   * frame the same. It costs one frame without a screenshot per range.
   */
  private async restartPages(frame: number): Promise<void> {
    for (const page of this.pages.list) {
      await this.evaluateOn(page, `window.${ENGINE_GLOBAL}.hideLayers()`, this.frameLimit(frame))
      await page.capturer.restart(this.frameLimit(frame))
      await this.evaluateOn(page, `window.${ENGINE_GLOBAL}.showLayers()`, this.frameLimit(frame))
    }
  }

  private async seekOn(page: number, lane: PageLane, index: number): Promise<void> {
    const started = spanStart()
    const seek = await this.evaluateOn<{error: SeekResult; loadedAssets: boolean}>(
      this.pages.list[page],
      `window.${ENGINE_GLOBAL}.seek(${index}).then((error) => ({error, loadedAssets: window.${ENGINE_GLOBAL}.seekLoadedAssets()}))`,
      this.frameLimit(index),
    )
    endSpan('seek', started, {worker: this.pages.worker, page, frame: index})
    if (seek.error && this.plan.pageErrors !== 'warn') throw pageError(seek.error, this.plan, documentNameOf(this.plan))
    lane.loadedAssets ||= seek.loadedAssets
  }

  private async captureOn(page: number, lane: PageLane, index: number): Promise<Buffer> {
    const {capturer} = this.pages.list[page]
    const started = spanStart()
    const reusedBefore = capturer.reusedFrames
    // Assets loaded by any seek since this page last drew (on a frame another page drew) count.
    const image = await capturer.capture(this.frameLimit(index), {fresh: lane.loadedAssets})
    lane.loadedAssets = false
    endSpan('capture', started, {worker: this.pages.worker, page, frame: index, reused: capturer.reusedFrames > reusedBefore})
    return image
  }

  evaluate<T>(expression: string): Promise<T> {
    return this.evaluateOn<T>(this.pages.list[0], expression, this.evaluateLimit(`evaluating ${expression.slice(0, 80)}`))
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      // A pooled process goes back only with its tabs closed; if even that fails, it is ended.
      await this.lease.release(await this.pages.close())
    })()
    return this.closed
  }

  private evaluateLimit(doing: string): CallLimit {
    return {
      timeoutMs: this.frameTimeoutMs,
      onTimeout: () => new EngineError('PAGE_TIMEOUT', `the page did not answer within ${this.frameTimeoutMs / 1000} s (${doing})`),
    }
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

  private async evaluateOn<T>(page: LoadedPage, expression: string, limit: CallLimit): Promise<T> {
    const response: Protocol.Runtime.EvaluateResponse = await page.connection.send(
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
