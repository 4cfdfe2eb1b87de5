import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import {openCaptureWorker, type CaptureWorker} from '../capture/index.js'
import {browserForPlan} from '../capture/plan-browser.js'
import {planPageRequests} from '../capture/plan-page-requests.js'
import type {CompileFunction} from '../compose/apply-variables.js'
import type {CompiledComposition} from '../compose/compile-composition.js'
import {getFormat} from '../encode/format-registry.js'
import type {Fps} from '../plan/fps.js'
import {renderedFrames} from '../plan/frame-range.js'
import {planRender} from '../plan/plan-render.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {resolveRenderBrowser} from '../profile/resolve-render-browser.js'
import {ENGINE_GLOBAL} from '../runtime/page-protocol.js'
import type {ClipWindow} from '../runtime/text-check-protocol.js'
import {planTextCheckFrames} from '../runtime/text-check-frames.js'
import {stillFrame, type StillSettings} from '../still/still-settings.js'
import {compileAndReport} from './compile-and-report.js'
import {mergeFindings, parsePageFindings, type TextFinding} from './text-findings.js'
import {timeComposition} from './time-composition.js'

export interface TextCheckRequest {
  composition: string
  options: ResolvedRenderOptions
  variables?: Record<string, unknown>
  /** The composition compiled once without top-level values (a batch's): `variables` are applied to it. */
  template?: CompiledComposition
  compile?: CompileFunction
  projectDir?: string
  /** Warm browser processes (a batch's): the check takes one and gives it back. */
  pool?: BrowserPool
  signal?: AbortSignal
  /** A still's frame: only that frame is checked. */
  still?: StillSettings
}

export interface TextCheckResult {
  findings: TextFinding[]
  /** The frames looked at. */
  frames: number[]
}

/**
 * The check pass: loads the composition with these values the way a render's worker does (same
 * plan, request policy and runtime, so `data-fit` settles the same way) and looks for text that
 * does not fit at the frames planTextCheckFrames picks. It draws no frame; the render's own
 * warnings (variables, fonts, requests) are the render's to report, so it reports none.
 */
export async function checkTextFit(request: TextCheckRequest): Promise<TextCheckResult> {
  const {options, signal} = request
  const {compiled} = await compileAndReport(request, options, () => {})
  const format = getFormat(options.format)
  const {browser: resolved} = await resolveRenderBrowser(options)
  const timed = await timeComposition(compiled, {options, format, browser: resolved, pool: request.pool, strict: false, warn: () => {}, signal})
  const {plan} = planRender(timed, options, format)
  return await checkPlanText(plan, {browser: resolved, pool: request.pool, signal, still: request.still})
}

/**
 * The check pass on a planned render, in a browser the caller chose (the serverless function
 * brings its own): opens the page as a capture worker does and looks at the frames
 * planTextCheckFrames picks (a still: its frame).
 */
export async function checkPlanText(plan: RenderPlan, on: {browser: BrowserChoice; pool?: BrowserPool; signal?: AbortSignal; still?: StillSettings}): Promise<TextCheckResult> {
  const {signal} = on
  const worker = await openCaptureWorker(plan, {browser: browserForPlan(on.browser, plan), pool: on.pool, requests: planPageRequests(plan, {signal}), signal})
  try {
    return await checkWorkerText(worker, plan, on.still)
  } finally {
    await worker.close()
  }
}

/**
 * The check pass on a page that is already open and ready (a capture worker's, the check's own or
 * a render's before its first frame): the frames planTextCheckFrames picks, or a still's frame. It
 * only seeks and measures; no frame is drawn, so a render's page captures the same pixels after it.
 */
export async function checkWorkerText(worker: Pick<CaptureWorker, 'evaluate'>, plan: RenderPlan, still?: StillSettings): Promise<TextCheckResult> {
  const frames = still
    ? [Math.min(stillFrame(still, plan.fps), plan.totalFrames - 1)]
    : planTextCheckFrames(await worker.evaluate<ClipWindow[]>(`window.${ENGINE_GLOBAL}.textClips()`), plan.fps, renderedFrames(plan))
  return {findings: await checkFramesOn(worker, frames, plan.fps, plan.pageErrors), frames}
}

/**
 * Seeks the worker's page to each frame (in order) and finds the text that does not fit there.
 * Under `--page-errors warn` (the plan's `pageErrors`) the page's errors do not stop the check.
 */
export async function checkFramesOn(worker: Pick<CaptureWorker, 'evaluate'>, frames: readonly number[], fps: Fps, pageErrors?: RenderPlan['pageErrors']): Promise<TextFinding[]> {
  const records = parsePageFindings(await worker.evaluate<unknown>(`window.${ENGINE_GLOBAL}.checkText(${JSON.stringify(frames)}, ${pageErrors === 'warn'})`))
  return mergeFindings(records, fps)
}
