import {setTimeout as sleep} from 'node:timers/promises'
import type {Protocol} from 'puppeteer-core'
import {EngineError} from '../errors/engine-error.js'
import type {RenderPlan} from '../plan/render-plan.js'
import type {BeginFrameGate, BeginFrameRequest} from './begin-frame-gate.js'
import type {CallLimit, PageConnection} from './page-connection.js'

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
 */
export class BeginFrameCapturer implements FrameCapturer {
  reusedFrames = 0
  private previous: Buffer | undefined
  private probeDamage = false
  private readonly intervalMs: number
  private readonly screenshot: Protocol.HeadlessExperimental.ScreenshotParams

  constructor(
    private readonly connection: PageConnection,
    plan: RenderPlan,
    private readonly gate: BeginFrameGate,
    private readonly trace?: BeginFrameRequest['trace'],
  ) {
    this.intervalMs = (1000 * plan.fps.den) / plan.fps.num
    this.screenshot = screenshotOptions(plan)
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
    if (this.probeDamage && this.previous && !options.fresh) {
      const {hasDamage} = await this.beginFrame(false, limit)
      if (!hasDamage) {
        this.reusedFrames++
        return this.previous
      }
    }
    for (let attempt = 0; attempt <= EMPTY_FRAME_RETRY_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await sleep(EMPTY_FRAME_RETRY_DELAYS_MS[attempt - 1]!)
      const {screenshotData} = await this.beginFrame(true, limit)
      if (!screenshotData) continue
      const image = Buffer.from(screenshotData, 'base64')
      this.probeDamage = this.previous !== undefined && image.equals(this.previous)
      this.previous = image
      if (this.probeDamage) await this.beginFrame(false, limit)
      return image
    }
    throw new EngineError('BROWSER_FAILED', `the browser returned no image for a frame after ${EMPTY_FRAME_RETRY_DELAYS_MS.length + 1} attempts`, {
      reason: 'no-image',
    })
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
