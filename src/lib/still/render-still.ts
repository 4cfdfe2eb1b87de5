import {rm, stat} from 'node:fs/promises'
import {extname, resolve} from 'node:path'
import type {BrowserPool} from '../browser/browser-pool.js'
import {openCaptureWorker, type CaptureWorker} from '../capture/index.js'
import {checkFramesOn} from '../render/check-text-fit.js'
import type {TextFinding} from '../render/text-findings.js'
import type {CompileFunction} from '../compose/apply-variables.js'
import {assertPixelsWithinLimits, type RenderLimits} from '../plan/render-limits.js'
import type {CompiledComposition} from '../compose/compile-composition.js'
import {getFormat} from '../encode/format-registry.js'
import {EngineError, toEngineError} from '../errors/engine-error.js'
import {compileAndReport} from '../render/compile-and-report.js'
import {finalizePlan} from '../render/finalize-plan.js'
import {requestNoticeReporter} from '../render/request-notices.js'
import {PageErrorWarnings} from '../render/page-error-warnings.js'
import {timeComposition} from '../render/time-composition.js'
import {outputSize, planRender} from '../plan/plan-render.js'
import type {RenderPlan} from '../plan/render-plan.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {resolveRenderBrowser} from '../profile/resolve-render-browser.js'
import {resolveRenderFfmpeg} from '../profile/resolve-render-ffmpeg.js'
import {defaultOutputPath} from '../render/output-path.js'
import {prepareOutputPath} from '../render/prepare-output-path.js'
import type {RenderEventListener} from '../render/render-events.js'
import {writeImage} from './write-image.js'
import {planPageRequests} from '../capture/plan-page-requests.js'
import {browserForPlan} from '../capture/plan-browser.js'
import {DEFAULT_STILL_QUALITY, stillExtension, stillFormatOf, stillFrame, type StillFormat, type StillSettings} from './still-settings.js'
import {makeTempDirectory} from '../files/temp-directory.js'
import {acceptCheckedEntry, chooseRenderCache, claimCachedOutput, storeCachedOutput} from '../render/cached-output.js'
import type {CacheClaim, RenderCache} from '../render-cache/render-cache.js'

/** Frame formats: a still is one frame of such a render, captured the same way. */
const FRAME_FORMAT = 'png-sequence'

export interface StillRequest {
  composition: string
  /** Render options that apply to a still: output, fps, strictVariables, browser choice, videoFrameFormat. */
  options: ResolvedRenderOptions
  still?: StillSettings
  variables?: Record<string, unknown>
  signal?: AbortSignal
  /** Warm browser processes to reuse (batch rows, server); the caller closes it. */
  pool?: BrowserPool
  /** Warnings (variables, media, blocked requests) as render events. */
  onEvent?: RenderEventListener
  /** The project the page may read (default: the composition's project; the server's --root). */
  projectDir?: string
  /** Font packages the composition's families resolve from first (a serverless site's). */
  fontPackages?: readonly string[]
  /** The composition compiled once without top-level values (batch rows): `variables` are applied to it. */
  template?: CompiledComposition
  /** How to compile the file when there is no template (default compileComposition in this thread). */
  compile?: CompileFunction
  /** Refuse a frame larger than this, as drawn (the server's per-request limits). */
  limits?: Pick<RenderLimits, 'maxPixels'>
  /**
   * The check pass on the page the still is captured from, before its capture: called with what
   * does not fit at the still's frame; throwing stops the still there (see checkTextFit).
   */
  onTextFindings?: (findings: TextFinding[]) => void | Promise<void>
  /** The render cache to reuse and store images in (default: the environment's); false bypasses it. */
  cache?: RenderCache | false
}

export interface StillResult {
  output: string
  format: StillFormat
  frame: number
  /** Where the frame sits on the timeline: frame / fps. */
  timeSeconds: number
  width: number
  height: number
  bytes: number
  renderMs: number
  /** The image came from the render cache. */
  cached?: boolean
  /** The image's sha256, when the render cache hashed it (a hit, or a stored image). */
  sha256?: string
}

/**
 * Renders one frame of a composition to an image with the render's own time semantics: the page is
 * seeked to frame N (t = N / fps) exactly as a video render seeks it, so the image is that frame.
 * PNG and WebP keep the alpha channel; JPEG is opaque. The file appears whole or not at all.
 */
export async function renderStill(request: StillRequest): Promise<StillResult> {
  const started = performance.now()
  const {options, signal} = request
  const settings = request.still ?? {}
  const emit = request.onEvent ?? (() => {})
  const output = options.output ? resolve(options.output) : defaultStillPath(request.composition, settings.format ?? 'png')
  const format = settings.format ?? stillFormatOf(output, '--output')
  await prepareOutputPath(output)

  const {compiled, warn, fonts} = await compileAndReport(request, options, emit, signal)
  const frameOptions = {...options, format: FRAME_FORMAT}
  const tools = Promise.all([resolveRenderFfmpeg(options), resolveRenderBrowser(options)])
  tools.catch(() => {})
  const timed = await timeComposition(compiled, {options: frameOptions, format: getFormat(FRAME_FORMAT), browser: (await tools)[1].browser, pool: request.pool, strict: options.strict, warn, signal})
  const {plan} = planRender(timed, frameOptions, getFormat(FRAME_FORMAT))
  if (request.limits) assertPixelsWithinLimits(plan, request.limits)
  const frame = stillFrame(settings, plan.fps)
  if (frame >= plan.totalFrames) {
    const last = plan.totalFrames - 1
    const asked = settings.frame !== undefined ? `--frame ${frame}` : `--time ${settings.time}`
    throw new EngineError('INVALID_FLAG', `${asked} is past the end: the composition has frames 0-${last} (0-${((last * plan.fps.den) / plan.fps.num).toFixed(3)} s at ${plan.fps.num}/${plan.fps.den} fps)`, {
      frame,
      totalFrames: plan.totalFrames,
    })
  }
  const quality = settings.quality ?? DEFAULT_STILL_QUALITY
  const stillPlan: RenderPlan = {
    ...plan,
    capture: format === 'jpeg' ? {imageFormat: 'jpeg', jpegQuality: quality, transparent: false} : {imageFormat: 'png', jpegQuality: quality, transparent: true},
  }

  const [{ffmpeg, notices: ffmpegNotices}, {browser: resolved, notices}] = await tools
  const browser = browserForPlan(resolved, plan)
  for (const notice of [...notices, ...ffmpegNotices]) emit({type: 'warning', ...notice})
  const workDir = await makeTempDirectory('still')
  let claim: CacheClaim | undefined
  try {
    const requests = planPageRequests(stillPlan, {signal, onNotice: requestNoticeReporter(compiled, warn)})
    // A still is an image: its media's dynamic range is the page's, SDR.
    const {plan: finished} = await finalizePlan(stillPlan, {browser, pool: request.pool, ffmpeg, requests, workDir, dynamicRange: {hdr: false, sdr: true}, signal})
    signal?.throwIfAborted()
    const result = async (cached: boolean): Promise<StillResult> => ({
      output,
      format,
      frame,
      timeSeconds: (frame * plan.fps.den) / plan.fps.num,
      ...outputSize(plan, plan.scale ?? 1),
      bytes: (await stat(output)).size,
      renderMs: Math.round(performance.now() - started),
      ...(cached && {cached}),
      ...(claim?.outputSha256() !== undefined && {sha256: claim.outputSha256()}),
    })
    const files = [{role: 'output' as const, path: output}]
    const cache = chooseRenderCache(request.cache, options.cache)
    const {onTextFindings} = request
    claim = await claimCachedOutput({
      cache,
      kind: 'still',
      plan: finished,
      extra: {frame, format, quality},
      browser,
      ffmpeg,
      format: getFormat(FRAME_FORMAT),
      targets: files,
      emit,
      accept: acceptCheckedEntry(onTextFindings),
    })
    if (claim?.lookup.hit) return await result(true)
    // Under --page-errors warn each uncaught error is a page-error warning, as in a render.
    const pageErrors = new PageErrorWarnings(emit)
    let textFindings: TextFinding[] | undefined
    const image = await captureOneFrame(finished, frame, {browser, pool: request.pool, requests, signal, onPageErrors: pageErrors.report}, async (worker) => {
      fonts.page(worker.ready.fonts)
      if (onTextFindings) await onTextFindings((textFindings = await checkFramesOn(worker, [frame], finished.fps, finished.pageErrors)))
    })
    await writeImage({image, captured: finished.capture.imageFormat, output, format, quality, ffmpegPath: ffmpeg.ffmpegPath, workDir, signal})
    await storeCachedOutput(pageErrors.count === 0 ? claim : undefined, {kind: 'still', composition: request.composition, files, result: {totalFrames: 1, durationSeconds: 0}, textFindings, requests, emit})
    return await result(false)
  } catch (error) {
    throw toEngineError(error)
  } finally {
    claim?.release()
    await rm(workDir, {recursive: true, force: true})
  }
}

async function captureOneFrame(
  plan: RenderPlan,
  frame: number,
  options: Parameters<typeof openCaptureWorker>[1],
  onReady: (worker: CaptureWorker) => Promise<void>,
): Promise<Buffer> {
  const worker = await openCaptureWorker(plan, options)
  try {
    await onReady(worker)
    let image: Buffer | undefined
    await worker.captureRange({start: frame, end: frame + 1}, (_index, captured) => {
      image = captured
    })
    if (!image) throw new EngineError('INTERNAL', `frame ${frame} was not captured`)
    return image
  } finally {
    await worker.close()
  }
}

/** `renders/<name>.<ext>`, like a render's default output. */
export function defaultStillPath(composition: string, format: StillFormat, cwd = process.cwd()): string {
  const video = defaultOutputPath(composition, getFormat('mp4'), cwd)
  return video.slice(0, -extname(video).length) + stillExtension(format)
}
