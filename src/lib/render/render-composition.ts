import {rm} from 'node:fs/promises'
import {availableParallelism} from 'node:os'
import {join, resolve} from 'node:path'
import type {BrowserPool} from '../browser/browser-pool.js'
import type {CompileFunction} from '../compose/apply-variables.js'
import type {CompiledComposition} from '../compose/compile-composition.js'
import {outputExtension} from '../encode/format-plugin.js'
import {getFormat} from '../encode/format-registry.js'
import {EngineError, toEngineError} from '../errors/engine-error.js'
import {DEFAULT_POSTER_FORMAT, posterFrame, posterPath} from '../still/poster.js'
import {writeImage} from '../still/write-image.js'
import {findBackgroundOnRoot} from '../lint/find-background-on-root.js'
import {formatFps, frameTime} from '../plan/fps.js'
import {renderedFrames} from '../plan/frame-range.js'
import {outputSize, planRender} from '../plan/plan-render.js'
import {PageErrorWarnings} from './page-error-warnings.js'
import {assertWithinLimits, type RenderLimits} from '../plan/render-limits.js'
import {resolveRenderBrowser} from '../profile/resolve-render-browser.js'
import {resolveRenderFfmpeg} from '../profile/resolve-render-ffmpeg.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import type {RenderPlan} from '../plan/render-plan.js'
import type {PageFontReport} from '../fonts/page/page-fonts.js'
import type {ReadyReport} from '../runtime/page-protocol.js'
import type {CaptureWorker} from '../capture/index.js'
import {browserForPlan} from '../capture/plan-browser.js'
import {planPageRequests} from '../capture/plan-page-requests.js'
import type {PageRequests} from '../sandbox/page-requests.js'
import {assembleRender, mixRenderAudio} from './assemble-render.js'
import {checkWorkerText} from './check-text-fit.js'
import {compileAndReport} from './compile-and-report.js'
import {finalizePlan} from './finalize-plan.js'
import {assertOutputExtension} from './format-from-output.js'
import {requestNoticeReporter} from './request-notices.js'
import {timeComposition} from './time-composition.js'
import {defaultOutputPath, outputBytes} from './output-path.js'
import {prepareOutputPath} from './prepare-output-path.js'
import {ProgressMeter} from './progress-meter.js'
import type {TextFinding} from './text-findings.js'
import type {RenderEvent, RenderEventListener} from './render-events.js'
import {rangeWorkers, renderRange} from './render-range.js'
import {makeTempDirectory} from '../files/temp-directory.js'
import type {CacheClaim, RenderCache} from '../render-cache/render-cache.js'
import {acceptCheckedEntry, chooseRenderCache, claimCachedOutput, singleFileOutput, storeCachedOutput} from './cached-output.js'

export interface RenderRequest {
  /** Path of the composition HTML file. */
  composition: string
  options: ResolvedRenderOptions
  /** Command-line layer of variable values (already merged: --variables-file < --variables). */
  variables?: Record<string, unknown>
  signal?: AbortSignal
  onEvent?: RenderEventListener
  /** Warm browser processes to reuse (batch rows, server renders); the caller closes it. */
  pool?: BrowserPool
  /** Cores to plan workers for (default: this machine's). */
  cores?: number
  /**
   * Pages each capture worker (browser process) alternates frames between (default one). Two capture
   * faster where a worker has cores to spare, but not split-deterministically: each page rasterises
   * only every other frame, and Chromium keeps layers (a will-change layer's raster scale, for one)
   * from the frames a page drew, so some pages differ from a one-page render by a few levels.
   */
  pagesPerWorker?: 1 | 2
  /** Refuse a composition longer or larger than this (the server's per-request limits). */
  limits?: RenderLimits
  /** The project the page may read (default: the composition's project; the server's --root). */
  projectDir?: string
  /**
   * The composition already compiled without top-level values (a batch compiles its template
   * once): `variables` are applied to it instead of compiling the file again.
   */
  template?: CompiledComposition
  /** What killed renders of this output left beside it is already removed (a batch sweeps once for all its rows). */
  partialsSwept?: boolean
  /** How to compile the file when there is no template (default compileComposition in this thread). */
  compile?: CompileFunction
  /** The render cache to reuse and store outputs in (default: the environment's, see renderCacheFor); false bypasses it. */
  cache?: RenderCache | false
  /**
   * Runs the text check pass on the render's own first page before its first frame (a batch row's
   * check, without a page of its own) and tells the findings here; a cache hit tells those its
   * entry's render found. Throwing stops the render before that page's first frame (other workers'
   * frames so far are dropped with it) and writes no output.
   */
  onTextFindings?: (findings: TextFinding[]) => void | Promise<void>
  /** The check pass could not run on the page (the capture then fails the same way, or succeeds unchecked). */
  onTextCheckFailed?: (error: EngineError) => void
}

export interface RenderResult {
  output: string
  bytes: number
  /** Frames of the output (the `--frames` range when there is one; `plan.totalFrames` is the composition's). */
  totalFrames: number
  /** Seconds of the output. */
  durationSeconds: number
  plan: RenderPlan
  timings: {compileMs: number; captureMs: number; assembleMs: number; totalMs: number}
  /** The poster image (`--poster`), written from the same capture as the video. */
  poster?: string
  /** Remote http(s) URLs the render loaded. */
  fetchedUrls: string[]
  /** The output (and poster) came from the render cache: nothing was captured or encoded. */
  cached?: boolean
  /** The output's sha256, when the render cache hashed it (a hit, or a stored output). */
  sha256?: string
}

/**
 * Renders one composition on this machine: compile, plan, capture the segments of the plan's
 * fixed grid with parallel browser workers (each segment its own encode), then assemble. Emits events throughout; on failure emits an
 * `error` event, leaves nothing at the output path, and rethrows an EngineError.
 */
export async function renderComposition(request: RenderRequest): Promise<RenderResult> {
  const emit = request.onEvent ?? (() => {})
  try {
    return await render(request, emit)
  } catch (error) {
    const engineError = toEngineError(error)
    emit({type: 'error', error: engineError.toJSON()})
    throw engineError
  }
}

async function render(request: RenderRequest, emit: (event: RenderEvent) => void): Promise<RenderResult> {
  const {options, signal} = request
  const started = performance.now()
  assertOutputExtension(options.output, options.format)
  emit({type: 'stage', stage: 'compile'})
  const {compiled, warn, fonts} = await compileAndReport(request, options, emit, signal)

  const format = getFormat(options.format)
  const onNotice = requestNoticeReporter(compiled, warn)
  // The browser and ffmpeg are needed before planning only when the page must tell its length.
  let tools: ReturnType<typeof resolveTools> | undefined
  const toolsOnce = () => (tools ??= resolveTools(options))
  let probeRequests: PageRequests | undefined
  const timed =
    compiled.durationSeconds === undefined
      ? await timeComposition(compiled, {
          options,
          format,
          browser: (await toolsOnce())[1].browser,
          pool: request.pool,
          requests: (plan) => (probeRequests = planPageRequests(plan, {signal, onNotice})),
          strict: options.strict,
          warn,
          signal,
        })
      : {...compiled, durationSeconds: compiled.durationSeconds}
  const {plan: planned, notices, fpsSource} = planRender(timed, options, format)
  if (request.limits) assertWithinLimits(planned, request.limits)
  for (const notice of notices) emit({type: 'warning', ...notice})
  if (format.alpha) {
    for (const finding of findBackgroundOnRoot(compiled.html)) emit({type: 'warning', code: 'background-with-alpha', message: finding.message})
  }
  const output = options.output ? resolve(options.output) : defaultOutputPath(request.composition, format)
  await prepareOutputPath(output, {sweep: !request.partialsSwept})

  const [{ffmpeg, notices: ffmpegNotices}, {browser: resolved, notices: browserNotices}] = await toolsOnce()
  const browser = browserForPlan(resolved, planned)
  for (const notice of [...browserNotices, ...ffmpegNotices]) emit({type: 'warning', ...notice})
  const poster =
    options.poster === undefined
      ? undefined
      : {frame: posterFrame(options.poster, planned), path: posterPath(output, format, options.posterFormat ?? DEFAULT_POSTER_FORMAT), image: undefined as Buffer | undefined}
  const range = renderedFrames(planned)
  const outputFrames = range.end - range.start
  const durationSeconds = frameTime(outputFrames, planned.fps)
  const cores = request.cores ?? availableParallelism()
  const workers = rangeWorkers(planned, range, options.workers, cores)
  const pagesPerWorker = request.pagesPerWorker ?? 1
  signal?.throwIfAborted()
  emit({
    type: 'start',
    composition: resolve(request.composition),
    output,
    format: planned.format,
    ...outputSize(planned, planned.scale ?? 1),
    fps: formatFps(planned.fps),
    fpsSource,
    totalFrames: outputFrames,
    firstFrame: range.start,
    durationSeconds: planned.frameRange ? durationSeconds : timed.durationSeconds,
    workers,
    quality: planned.encode.quality,
    browser: {executablePath: browser.executablePath, source: browser.source, beginFrame: browser.beginFrame},
    ffmpeg: {path: ffmpeg.ffmpegPath, version: ffmpeg.version},
    variables: compiled.variables,
  })
  const compiledAt = performance.now()

  const workDir = await makeTempDirectory('render')
  // The probe's policy served the same page: its downloads and notices carry over.
  const requests = probeRequests ?? planPageRequests(planned, {signal, onNotice})
  let claim: CacheClaim | undefined
  try {
    const finished = await finalizePlan(planned, {browser, pool: request.pool, ffmpeg, requests, workDir, dynamicRange: {hdr: options.hdr, sdr: options.sdr}, signal})
    const {plan} = finished
    for (const warning of finished.warnings) emit({type: 'warning', ...warning})
    const posterFormat = options.posterFormat ?? DEFAULT_POSTER_FORMAT
    const {onTextFindings} = request
    const targets = [{role: 'output' as const, path: output}, ...(poster ? [{role: 'poster' as const, path: poster.path}] : [])]
    claim = await claimCachedOutput({
      // Only a single file (and its poster) is cached: see docs/guides/rendering/render-cache.md.
      cache: singleFileOutput(format, plan) ? chooseRenderCache(request.cache, options.cache) : undefined,
      kind: 'render',
      plan,
      extra: {poster: poster ? {frame: poster.frame, format: posterFormat} : null, pagesPerWorker: request.pagesPerWorker ?? 1},
      browser,
      ffmpeg,
      format,
      targets,
      emit,
      accept: acceptCheckedEntry(onTextFindings),
    })
    if (claim?.lookup.hit) {
      const timings = {compileMs: Math.round(compiledAt - started), captureMs: 0, assembleMs: Math.round(performance.now() - compiledAt), totalMs: Math.round(performance.now() - started)}
      const bytes = await outputBytes(output)
      emit({type: 'stage', stage: 'done'})
      emit({type: 'done', output, bytes, totalFrames: outputFrames, durationSeconds, framesPerSecond: 0, hdr: plan.encode.hdr ?? null, poster: poster?.path ?? null, fetchedUrls: [], timings, cached: true})
      return {output, bytes, totalFrames: outputFrames, durationSeconds, plan, timings, fetchedUrls: [], cached: true, sha256: claim.outputSha256(), ...(poster && {poster: poster.path})}
    }
    const audioTrack = join(workDir, 'audio.wav')
    // The mix runs (once, offline) while the frames are captured.
    const mixed = mixRenderAudio(finished, audioTrack, ffmpeg.ffmpegPath, signal)
    mixed.catch(() => {})
    emit({type: 'stage', stage: 'capture'})
    const meter = new ProgressMeter(outputFrames, (frame, framesPerSecond, etaSeconds) =>
      emit({type: 'progress', stage: 'capture', frame, totalFrames: outputFrames, framesPerSecond, etaSeconds}),
    )
    const onFrame = (index: number, image: Buffer) => {
      meter.frameDone()
      // The poster is the very image this frame's encoder got: no second page load or seek.
      if (index === poster?.frame) poster.image = image
    }
    // Every worker loads the same page: each finding is told once.
    const onReady = (report: ReadyReport) => fonts.page(report.fonts)
    const onFontSamples = (report: PageFontReport) => fonts.page(report)
    const pageErrors = new PageErrorWarnings(emit)
    let textFindings: TextFinding[] | undefined
    const onFirstPage =
      onTextFindings &&
      (async (worker: CaptureWorker) => {
        try {
          ;({findings: textFindings} = await checkWorkerText(worker, plan))
        } catch (error) {
          if (signal?.aborted) throw error
          request.onTextCheckFailed?.(toEngineError(error))
          return
        }
        await onTextFindings(textFindings)
      })
    const segments = await renderRange(plan, range, {browser, pool: request.pool, requests, ffmpeg, workDir, workers, pagesPerWorker, signal, onFrame, onReady, onFirstPage, onFontSamples, onPageErrors: pageErrors.report})
    const capturedAt = performance.now()
    emit({type: 'stage', stage: 'assemble'})
    await assembleRender(plan, segments, {outputPath: output, audioTrack: (await mixed) ? audioTrack : undefined, ffmpeg, signal})
    if (poster) {
      try {
        if (!poster.image) throw new EngineError('INTERNAL', `the poster frame ${poster.frame} was never captured`)
        const quality = plan.capture.jpegQuality
        await writeImage({image: poster.image, captured: plan.capture.imageFormat, output: poster.path, format: posterFormat, quality, ffmpegPath: ffmpeg.ffmpegPath, workDir, signal})
      } catch (error) {
        if (outputExtension(format) !== undefined) await rm(output, {force: true})
        throw error
      }
    }
    const finishedAt = performance.now()

    const timings = {
      compileMs: Math.round(compiledAt - started),
      captureMs: Math.round(capturedAt - compiledAt),
      assembleMs: Math.round(finishedAt - capturedAt),
      totalMs: Math.round(finishedAt - started),
    }
    const bytes = await outputBytes(output, format)
    await storeCachedOutput(pageErrors.count === 0 ? claim : undefined, {kind: 'render', composition: request.composition, files: targets, result: {totalFrames: outputFrames, durationSeconds}, textFindings, requests, emit})
    emit({type: 'stage', stage: 'done'})
    emit({
      type: 'done',
      output,
      bytes,
      totalFrames: outputFrames,
      durationSeconds,
      framesPerSecond: Math.round((outputFrames / ((finishedAt - compiledAt) / 1000)) * 10) / 10,
      hdr: plan.encode.hdr ?? null,
      poster: poster?.path ?? null,
      fetchedUrls: requests.fetchedUrls,
      timings,
    })
    return {output, bytes, totalFrames: outputFrames, durationSeconds, plan, timings, fetchedUrls: requests.fetchedUrls, sha256: claim?.outputSha256(), ...(poster && {poster: poster.path})}
  } finally {
    claim?.release()
    await rm(workDir, {recursive: true, force: true})
  }
}

/** ffmpeg and the capture browser of this machine, resolved together. */
function resolveTools(options: ResolvedRenderOptions) {
  return Promise.all([resolveRenderFfmpeg(options), resolveRenderBrowser(options)])
}
