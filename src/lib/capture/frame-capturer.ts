import {setTimeout as sleep} from 'node:timers/promises'
import type {Protocol} from 'puppeteer-core'
import {EngineError} from '../errors/engine-error.js'
import type {RenderPlan} from '../plan/render-plan.js'
import type {BeginFrameGate, BeginFrameRequest} from './begin-frame-gate.js'
import type {CallLimit, PageConnection} from './page-connection.js'
import {takesBeginFrameScreenshots} from './plan-browser.js'

export interface CaptureOptions {
  /** Draw and screenshot this frame whatever damage tracking says (assets just loaded). */
  fresh?: boolean
}

/** Takes the image of the page as it is now (after a seek). */
export interface FrameCapturer {
  capture(limit: CallLimit, options?: CaptureOptions): Promise<Buffer>
  /**
   * Draws one frame without keeping its image and forgets the frames before it: the next capture
   * is taken as the first one of a fresh page.
   */
  restart(limit: CallLimit): Promise<void>
  /** Frames answered with the previous image because nothing was drawn differently. */
  readonly reusedFrames: number
}

/**
 * A begin-frame screenshot comes back empty when the renderer has not delivered its frame in time,
 * which happens on a loaded machine. Asking again produces it, but only once the renderer has caught
 * up, so the retries wait longer each time (about 2 s in all) instead of asking in a tight loop.
 */
const EMPTY_FRAME_RETRY_DELAYS_MS = [10, 25, 50, 100, 200, 400]

/** Waits before each frame drawn for a pending page screenshot (about 2 s in all). */
const COPY_FRAME_DELAYS_MS = [0, 2, 5, 10, 25, 50, 100, 200, 400, 800]

function noImage(attempts: number): EngineError {
  return new EngineError('BROWSER_FAILED', `the browser returned no image for a frame after ${attempts} attempts`, {reason: 'no-image'})
}

/** A page whose frames keep coming back empty; its worker recovers by loading the page afresh. */
export function isNoImageError(error: unknown): boolean {
  return error instanceof EngineError && error.code === 'BROWSER_FAILED' && (error.details as {reason?: string} | undefined)?.reason === 'no-image'
}

export function screenshotOptions(plan: RenderPlan): Protocol.HeadlessExperimental.ScreenshotParams {
  // optimizeForSpeed also quantises PNG alpha, which alpha formats cannot afford.
  return plan.capture.imageFormat === 'png'
    ? {format: 'png'}
    : {format: 'jpeg', quality: plan.capture.jpegQuality, optimizeForSpeed: true}
}

/**
 * Capture with `HeadlessExperimental.beginFrame`: each call draws exactly one frame. A frame
 * that asks for a screenshot always redraws (and leaves the next frame damaged too), so damage is
 * only meaningful on frames without one. While frames keep changing, each frame is one beginFrame
 * with a screenshot. Once a screenshot comes back byte-identical to the previous one, the page is
 * treated as possibly still: one extra frame absorbs the screenshot's own redraw, and from then on
 * each frame first draws without a screenshot; when that reports no damage the pixels cannot have
 * changed and the previous image is reused. Only damaged frames pay for a screenshot.
 *
 * Below the smallest scale begin-frame screenshots are drawn at (see MIN_BEGIN_FRAME_SCALE), the
 * page is still drawn by begin-frames, and its image is copied with `Page.captureScreenshot`, which
 * takes the page's own scale factor: see copyDrawnFrame.
 */
export class BeginFrameCapturer implements FrameCapturer {
  reusedFrames = 0
  private previous: Buffer | undefined
  private probeDamage = false
  private readonly intervalMs: number
  private readonly screenshot: Protocol.HeadlessExperimental.ScreenshotParams
  /** Set when the plan's scale is below what a begin-frame screenshot draws. */
  private readonly pageScreenshot: Protocol.Page.CaptureScreenshotRequest | undefined

  constructor(
    private readonly connection: PageConnection,
    plan: RenderPlan,
    private readonly gate: BeginFrameGate,
    private readonly trace?: BeginFrameRequest['trace'],
  ) {
    this.intervalMs = (1000 * plan.fps.den) / plan.fps.num
    this.screenshot = screenshotOptions(plan)
    if (!takesBeginFrameScreenshots(plan)) this.pageScreenshot = {...this.screenshot, fromSurface: true, captureBeyondViewport: false}
  }

  /** A frame without a screenshot; it lets the page lay out and paint (while loading, for example). */
  async pump(limit: CallLimit): Promise<boolean> {
    const {hasDamage} = await this.beginFrame(false, limit)
    // What this frame drew was never captured, so the next capture cannot assume "no damage, same image".
    if (hasDamage) this.probeDamage = false
    return hasDamage
  }

  async restart(limit: CallLimit): Promise<void> {
    await this.beginFrame(false, limit)
    this.previous = undefined
    this.probeDamage = false
  }

  async capture(limit: CallLimit, options: CaptureOptions = {}): Promise<Buffer> {
    let drawn = false
    if (this.probeDamage && this.previous && !options.fresh) {
      const {hasDamage} = await this.beginFrame(false, limit)
      if (!hasDamage) {
        this.reusedFrames++
        return this.previous
      }
      drawn = true
    }
    const image = this.pageScreenshot ? await this.copyDrawnFrame(this.pageScreenshot, drawn, limit) : await this.drawScreenshot(limit)
    this.probeDamage = this.previous !== undefined && image.equals(this.previous)
    this.previous = image
    if (this.probeDamage) await this.beginFrame(false, limit)
    return image
  }

  private async drawScreenshot(limit: CallLimit): Promise<Buffer> {
    for (let attempt = 0; attempt <= EMPTY_FRAME_RETRY_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await sleep(EMPTY_FRAME_RETRY_DELAYS_MS[attempt - 1]!)
      const {screenshotData} = await this.beginFrame(true, limit)
      if (screenshotData) return Buffer.from(screenshotData, 'base64')
    }
    throw noImage(EMPTY_FRAME_RETRY_DELAYS_MS.length + 1)
  }

  /**
   * A begin-frame draws the page as the seek left it (unless the damage probe just did); once it
   * has answered, that frame is on screen. `Page.captureScreenshot` copies a frame drawn after its
   * request reaches the compositor, which only begin-frames draw here: frames are drawn until it
   * answers. Nothing on the page moves between those frames (its clock is the engine's), so
   * however many it takes, the copy shows the state the seek left. Plain screenshots (without
   * begin-frames) wait for the browser's own 60 Hz frames and cannot know which one they copy:
   * 30 frames of examples/hello at `--scale 0.25` took 3.1-3.2 s that way, 0.8-0.9 s this way,
   * with the same bytes.
   */
  private async copyDrawnFrame(params: Protocol.Page.CaptureScreenshotRequest, drawn: boolean, limit: CallLimit): Promise<Buffer> {
    if (!drawn) await this.beginFrame(false, limit)
    let copied = false
    const copy = this.connection.send('Page.captureScreenshot', params, limit)
    const settled = copy.then(
      () => (copied = true),
      () => (copied = true),
    )
    for (const delay of COPY_FRAME_DELAYS_MS) {
      // The request travels to the compositor on its own; a frame drawn before it arrives copies nothing.
      await Promise.race([settled, sleep(delay)])
      if (copied) break
      await this.beginFrame(false, limit)
    }
    if (!copied) {
      copy.catch(() => {})
      throw noImage(COPY_FRAME_DELAYS_MS.length)
    }
    const {data} = await copy
    return Buffer.from(data, 'base64')
  }

  private beginFrame(withScreenshot: boolean, limit: CallLimit): Promise<Protocol.HeadlessExperimental.BeginFrameResponse> {
    return this.gate.send(this.connection, {intervalMs: this.intervalMs, trace: this.trace, ...(withScreenshot ? {screenshot: this.screenshot} : {})}, limit)
  }
}

/** Capture with `Page.captureScreenshot`, for browsers without begin-frame control (new headless). */
export class ScreenshotCapturer implements FrameCapturer {
  readonly reusedFrames = 0
  private readonly params: Protocol.Page.CaptureScreenshotRequest
  private world: Promise<number> | undefined

  constructor(
    private readonly connection: PageConnection,
    plan: RenderPlan,
  ) {
    this.params = {...screenshotOptions(plan), fromSurface: true, captureBeyondViewport: false}
  }

  async restart(limit: CallLimit): Promise<void> {
    await this.capture(limit)
  }

  async capture(limit: CallLimit): Promise<Buffer> {
    // A screenshot copies the next frame the compositor draws, which can still be one committed
    // before the seek: under load, one render in two had frames a few milliseconds off. Once a
    // second animation frame has begun, the first one, drawn from the page as the seek left it,
    // has been committed. The page's own requestAnimationFrame follows the engine's clock, so the
    // wait runs in a world of its own, which has the browser's.
    const contextId = await this.captureWorld(limit)
    await this.connection.send('Runtime.evaluate', {expression: AFTER_NEXT_COMMIT, awaitPromise: true, contextId}, limit)
    const {data} = await this.connection.send('Page.captureScreenshot', this.params, limit)
    return Buffer.from(data, 'base64')
  }

  private captureWorld(limit: CallLimit): Promise<number> {
    this.world ??= (async () => {
      const {frameTree} = await this.connection.send('Page.getFrameTree', undefined, limit)
      const {executionContextId} = await this.connection.send('Page.createIsolatedWorld', {frameId: frameTree.frame.id, worldName: 'engine-capture'}, limit)
      return executionContextId
    })()
    return this.world
  }
}

const AFTER_NEXT_COMMIT = 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null))))'
