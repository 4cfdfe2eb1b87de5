import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import {openCaptureWorker} from '../capture/index.js'
import {browserForPlan} from '../capture/plan-browser.js'
import type {CompiledComposition, TimedComposition} from '../compose/compile-composition.js'
import {assertDurationWithinBudget} from '../compose/compile-budget.js'
import {EngineError} from '../errors/engine-error.js'
import type {FormatCapabilities} from '../plan/format-capabilities.js'
import {planRender} from '../plan/plan-render.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import type {PageRequests} from '../sandbox/page-requests.js'

export interface TimeCompositionOptions {
  options: ResolvedRenderOptions
  format: FormatCapabilities
  /** The browser the render captures with (browserForPlan narrows it to the plan). */
  browser: BrowserChoice
  pool?: BrowserPool
  /** The render's request policy: the probe page loads what the render's pages will. */
  requests?: (plan: ReturnType<typeof planRender>['plan']) => PageRequests
  /** `--strict`: a length not written in the composition is an error instead of a warning. */
  strict: boolean
  warn: (warning: {code: 'duration-inferred'; message: string}) => void
  signal?: AbortSignal
}

/** The length a probe plans with: the page is only loaded, never captured. */
const PROBE_SECONDS = 1

/**
 * The composition with its length: the root's `data-duration`, or, without one, the length of the
 * longest timeline its page registers for the root (`window.__timelines[id] = tl`), as the runtime
 * seeks it. The page is loaded once to read it; a `duration-inferred` warning gives the value and
 * the attribute to write, `--strict` refuses instead, and no timeline at all is an error with the fix.
 */
export async function timeComposition(compiled: CompiledComposition, options: TimeCompositionOptions): Promise<TimedComposition> {
  if (compiled.durationSeconds !== undefined) return {...compiled, durationSeconds: compiled.durationSeconds}
  if (options.strict) assertDurationWritten(compiled)
  const {plan} = planRender({...compiled, durationSeconds: PROBE_SECONDS}, options.options, options.format)
  const worker = await openCaptureWorker(plan, {
    browser: browserForPlan(options.browser, plan),
    pool: options.pool,
    requests: options.requests?.(plan),
    signal: options.signal,
  })
  const seconds = await worker.close().then(() => worker.ready.timelineSeconds)
  if (seconds === 'endless') {
    throw new EngineError(
      'COMPOSITION_INVALID',
      `${rootOf(compiled)} has no data-duration and its registered timeline repeats forever (repeat: -1), so it has no length to take: add data-duration="<seconds>" to the root element`,
      {file: compiled.file},
    )
  }
  if (seconds === undefined) {
    throw new EngineError(
      'COMPOSITION_INVALID',
      `${rootOf(compiled)} has no data-duration and its page registers no timeline to take the length from: add data-duration="<seconds>" to the root element, or register its GSAP timeline as window.__timelines["${compiled.compositionId}"] = tl`,
      {file: compiled.file},
    )
  }
  const root = rootOf(compiled)
  // A length taken from the page is held to the same cap as a written one.
  assertDurationWithinBudget(seconds, root)
  const rounded = Math.round(seconds * 1000) / 1000
  options.warn({
    code: 'duration-inferred',
    message: `${root} has no data-duration: rendering ${rounded} s, the length of its longest registered timeline; write data-duration="${rounded}" on the root element to fix the length`,
  })
  return {...compiled, durationSeconds: seconds}
}

/** `--strict`: the length must be written on the root, not taken from the page. */
export function assertDurationWritten(compiled: CompiledComposition): void {
  if (compiled.durationSeconds !== undefined) return
  throw new EngineError(
    'COMPOSITION_INVALID',
    `${rootOf(compiled)} has no data-duration; --strict does not take the length from its timelines: add data-duration="<seconds>" to the root element`,
    {file: compiled.file},
  )
}

function rootOf(compiled: CompiledComposition): string {
  return `the root composition "${compiled.compositionId}" of ${compiled.file}`
}
