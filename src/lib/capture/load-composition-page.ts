import {randomUUID} from 'node:crypto'
import type {Browser, Protocol} from 'puppeteer-core'
import {EngineError} from '../errors/engine-error.js'
import {fontLoadFailure} from '../fonts/font-findings.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {ENGINE_GLOBAL, type ReadinessState, type ReadyReport} from '../runtime/page-protocol.js'
import {RUNTIME_CONFIG_GLOBAL} from '../runtime/runtime-config.js'
import type {PageRequests} from '../sandbox/page-requests.js'
import type {BeginFrameGate} from './begin-frame-gate.js'
import {BeginFrameCapturer, ScreenshotCapturer, type FrameCapturer} from './frame-capturer.js'
import {interceptRequests} from './intercept-requests.js'
import {PageConnection, type CallLimit} from './page-connection.js'
import {pageError} from './page-error.js'
import {loadRuntimeBundle} from './runtime-bundle.js'
import {endSpan, spanStart} from '../trace/timeline.js'

export interface LoadPageOptions {
  beginFrame: boolean
  /** The begin-frames of the browser process the page lives in (shared by its pages). */
  gate: BeginFrameGate
  /** Which worker and page this is, for the timeline. */
  trace?: {worker: number; page: number}
  readyTimeoutMs: number
  /** File name the page is served as under `plan.baseUrl`; error locations name it. */
  documentName: string
  /** Answers every request of the page (the sandbox policy of this render). */
  requests: PageRequests
  signal?: AbortSignal
}

export interface LoadedPage {
  connection: PageConnection
  capturer: FrameCapturer
  pageUrl: string
  report: ReadyReport
  /** Closes the tab (its browser process stays up for the next page). */
  closeTab(): Promise<void>
}

/**
 * The tab's window, in pixels. The page's viewport is the composition's size through device metrics
 * emulation, and screenshots copy the page's own surface, so the window shows nothing anyone reads.
 * At the composition's size it cost the display compositor a second full draw of every frame, into
 * that window: 3.5 ms of a 1080p frame's 30 in the browser's trace, 7 % of a default render's time.
 * The pages draw the same pixels either way; only `window.outerWidth` and `outerHeight` report it.
 */
const WINDOW_SIZE = 16

/** How often a begin-frame page is given a frame while it loads (it paints nothing without one). */
const LOAD_PUMP_INTERVAL_MS = 20
const SETUP_TIMEOUT_MS = 10_000
const READINESS_QUERY_TIMEOUT_MS = 2000

/**
 * Opens the composition in a new tab of `browser`: the runtime and its config are evaluated before
 * any page script, the compiled HTML is served at `<baseUrl><documentName>` on the private page
 * origin so relative URLs resolve as they do from the source file, every request is answered by
 * `options.requests`, and the call returns once `__engine.ready()` does.
 */
export async function loadCompositionPage(browser: Browser, plan: RenderPlan, options: LoadPageOptions): Promise<LoadedPage> {
  const blankUrl = `about:blank#engine-${randomUUID()}`
  const browserSession = await browser.target().createCDPSession()
  const {targetId} = await browserSession.send('Target.createTarget', {
    url: blankUrl,
    width: WINDOW_SIZE,
    height: WINDOW_SIZE,
    enableBeginFrameControl: options.beginFrame,
  })
  const target = await browser.waitForTarget((candidate) => candidate.url() === blankUrl, {timeout: SETUP_TIMEOUT_MS})
  // A pooled process's next page starts only once this one's compositor is gone, so that nothing
  // of this page can draw into that page's frames.
  const closeTab = async () => {
    const destroyed = new Promise<void>((resolve) => {
      const onDestroyed = (gone: unknown) => {
        if (gone !== target) return
        browser.off('targetdestroyed', onDestroyed)
        resolve()
      }
      browser.on('targetdestroyed', onDestroyed)
    })
    await browserSession.send('Target.closeTarget', {targetId})
    await destroyed
    await browserSession.detach()
  }
  const connection = new PageConnection(browser, await target.createCDPSession(), options.signal)
  const setup: CallLimit = {timeoutMs: SETUP_TIMEOUT_MS, onTimeout: () => new EngineError('BROWSER_FAILED', 'the browser did not answer while opening the page')}

  try {
    const capturer = options.beginFrame ? new BeginFrameCapturer(connection, plan, options.gate, options.trace) : new ScreenshotCapturer(connection, plan)
    if (options.beginFrame) await connection.send('HeadlessExperimental.enable', undefined, setup)
    await connection.send('Emulation.setDeviceMetricsOverride', {width: plan.width, height: plan.height, deviceScaleFactor: plan.scale ?? 1, mobile: false}, setup)
    if (plan.capture.transparent) {
      await connection.send('Emulation.setDefaultBackgroundColorOverride', {color: {r: 0, g: 0, b: 0, a: 0}}, setup)
    }
    const bundle = await loadRuntimeBundle()
    const bootstrap = `window.${RUNTIME_CONFIG_GLOBAL} = ${JSON.stringify(plan.runtime)};\n${bundle}`
    // The runtime script only attaches to new documents while the Page domain is enabled.
    await connection.send('Page.enable', undefined, setup)
    await connection.send('Page.addScriptToEvaluateOnNewDocument', {source: bootstrap}, setup)

    const pageUrl = new URL(options.documentName, plan.baseUrl).href
    await interceptRequests(connection, options.requests, setup)
    const navigation = await connection.send('Page.navigate', {url: pageUrl}, setup)
    if (navigation.errorText) {
      throw new EngineError('BROWSER_FAILED', `the browser could not open the composition at ${pageUrl}: ${navigation.errorText}`)
    }

    const readying = spanStart()
    const report = await waitForReady(connection, capturer, pageUrl, options.readyTimeoutMs)
    endSpan('page-ready', readying, options.trace)
    // Under --page-errors warn they are gathered with the range's (CaptureWorker) and reported once.
    if (report.errors.length > 0 && plan.pageErrors !== 'warn') throw pageError(report.errors[0], plan, options.documentName)
    if (report.fonts.failed.length > 0) throw fontLoadFailure(report.fonts.failed)
    return {connection, capturer, pageUrl, report, closeTab}
  } catch (error) {
    connection.dispose()
    throw error
  }
}

/**
 * Waits for `__engine.ready()` in the composition's document (retrying until navigation has
 * committed), giving a begin-frame page frames meanwhile. On timeout, the error names the stage the
 * page was stuck in.
 */
async function waitForReady(connection: PageConnection, capturer: FrameCapturer, pageUrl: string, timeoutMs: number): Promise<ReadyReport> {
  const deadline = performance.now() + timeoutMs
  const timedOut = () => readinessTimeout(connection, pageUrl, timeoutMs)
  const expression = `location.href === ${JSON.stringify(pageUrl)} && window.${ENGINE_GLOBAL} ? window.${ENGINE_GLOBAL}.ready() : null`
  const remaining = (): CallLimit => ({timeoutMs: Math.max(1, deadline - performance.now()), onTimeout: timedOut})
  for (;;) {
    let settled = false
    const attempt = connection
      .send('Runtime.evaluate', {expression, awaitPromise: true, returnByValue: true}, remaining())
      .finally(() => {
        settled = true
      })
    attempt.catch(() => {})
    while (!settled && capturer instanceof BeginFrameCapturer) {
      await capturer.pump(remaining())
      await Promise.race([attempt.catch(() => {}), sleep(LOAD_PUMP_INTERVAL_MS)])
    }
    let response: Protocol.Runtime.EvaluateResponse | undefined
    try {
      response = await attempt
    } catch (error) {
      // The evaluation raced the navigation ("context destroyed"): try again in the new document.
      if (connection.error || (error instanceof EngineError && error.code === 'PAGE_TIMEOUT')) throw error
    }
    if (response?.exceptionDetails) throw runtimeFailure(response.exceptionDetails)
    const value = response?.result.value as ReadyReport | null | undefined
    if (value) return value
    if (performance.now() >= deadline) throw await timedOut()
    await sleep(LOAD_PUMP_INTERVAL_MS)
  }
}

async function readinessTimeout(connection: PageConnection, pageUrl: string, timeoutMs: number): Promise<EngineError> {
  const seconds = Math.round(timeoutMs / 100) / 10
  let waitingFor: string
  let state: ReadinessState | null = null
  try {
    const {result} = await connection.send(
      'Runtime.evaluate',
      {expression: `window.${ENGINE_GLOBAL} ? window.${ENGINE_GLOBAL}.readiness() : null`, returnByValue: true},
      {timeoutMs: READINESS_QUERY_TIMEOUT_MS, onTimeout: () => new EngineError('PAGE_TIMEOUT', 'unresponsive')},
    )
    state = result.value as ReadinessState | null
    waitingFor = state ? describeStage(state) : `the page to start loading (${pageUrl})`
  } catch {
    waitingFor = 'the page to respond: its main thread is busy (is a script stuck in a loop?)'
  }
  return new EngineError('PAGE_TIMEOUT', `the composition was not ready after ${seconds} s: still waiting for ${waitingFor}`, {
    timeoutMs,
    waitingFor,
    ...(state?.stage === 'holds' && {held: state.pending}),
  })
}

function describeStage({stage, pending}: ReadinessState): string {
  const list = pending.length > 0 ? `: ${pending.slice(0, 5).join(', ')}${pending.length > 5 ? `, and ${pending.length - 5} more` : ''}` : ''
  switch (stage) {
    case 'load':
      return `the page to load (DOMContentLoaded and load events${list})`
    case 'fonts':
      return `fonts (document.fonts.ready${list})`
    case 'images':
      return `images to load and decode${list}`
    case 'scripts':
      return 'page scripts to finish their start-up timers'
    case 'holds':
      return `__engine.hold() to be released, still held: ${pending.map((label) => JSON.stringify(label)).join(', ')}; call the function each hold() returned once its work is done (also when it fails), or raise data-ready-timeout on the root`
    default:
      return `__engine ready (${stage})`
  }
}

function runtimeFailure(details: Protocol.Runtime.ExceptionDetails): EngineError {
  const message = details.exception?.description ?? details.text
  return new EngineError('INTERNAL', `the page runtime failed: ${message}`, {details})
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
