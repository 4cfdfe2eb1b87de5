import {mkdtemp, rm} from 'node:fs/promises'
import {availableParallelism, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import type {BrowserPool} from '../browser/browser-pool.js'
import {compileComposition} from '../compose/compile-composition.js'
import {outputExtension} from '../encode/format-plugin.js'
import {getFormat} from '../encode/format-registry.js'
import {selectGpuEncoder} from '../encode/gpu/select-gpu-encoder.js'
import {assembleOutput} from '../encode/assemble-output.js'
import {decideHdrOutput} from '../encode/hdr-output.js'
import {resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import {toEngineError} from '../errors/engine-error.js'
import {findBackgroundOnRoot} from '../lint/find-background-on-root.js'
import {formatFps} from '../plan/fps.js'
import {planRender} from '../plan/plan-render.js'
import {resolveRenderBrowser} from '../profile/resolve-render-browser.js'
import type {ResolvedRenderOptions} from '../plan/resolve-options.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {splitFrames, workerCount} from '../plan/worker-count.js'
import {assertNoStrictErrors} from '../variables/strict-variables.js'
import {attachAudioTrack} from '../media/attach-audio-track.js'
import {mixAudioTrack} from '../media/mix-audio-track.js'
import {prepareMedia} from '../media/prepare-media.js'
import {captureSegments} from './capture-segments.js'
import {defaultOutputPath, outputBytes} from './output-path.js'
import {ProgressMeter} from './progress-meter.js'
import type {RenderEvent, RenderEventListener} from './render-events.js'

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
}

export interface RenderResult {
  output: string
  bytes: number
  totalFrames: number
  durationSeconds: number
  plan: RenderPlan
  timings: {compileMs: number; captureMs: number; assembleMs: number; totalMs: number}
}

/**
 * Renders one composition on this machine: compile, plan, capture with parallel browser workers
 * each feeding its own encoder, then assemble. Emits events throughout; on failure emits an
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
  emit({type: 'stage', stage: 'compile'})
  const compiled = await compileComposition(request.composition, {
    variables: request.variables,
    strictVariables: options.strictVariables,
  })
  if (options.strictVariables) assertNoStrictErrors(compiled.findings)
  for (const finding of compiled.findings) emit({type: 'warning', code: finding.code, message: finding.message})

  const format = getFormat(options.format)
  const {plan, notices} = planRender(compiled, options, format)
  for (const notice of notices) emit({type: 'warning', ...notice})
  if (format.alpha) {
    for (const finding of findBackgroundOnRoot(compiled.html)) emit({type: 'warning', code: 'background-with-alpha', message: finding.message})
  }
  const output = options.output ? resolve(options.output) : defaultOutputPath(request.composition, format)

  const [ffmpeg, {browser, notices: browserNotices}] = await Promise.all([resolveFfmpeg(), resolveRenderBrowser(options)])
  for (const notice of browserNotices) emit({type: 'warning', ...notice})
  if (plan.encode.gpu) plan.encode.gpuEncoder = (await selectGpuEncoder({ffmpegPath: ffmpeg.ffmpegPath})).name
  const workers = workerCount(options.workers, request.cores ?? availableParallelism(), plan.totalFrames)
  const ranges = splitFrames(plan.totalFrames, workers)
  signal?.throwIfAborted()
  emit({
    type: 'start',
    composition: resolve(request.composition),
    output,
    format: plan.format,
    width: plan.width,
    height: plan.height,
    fps: formatFps(plan.fps),
    totalFrames: plan.totalFrames,
    durationSeconds: compiled.durationSeconds,
    workers: ranges.length,
    quality: plan.encode.quality,
    browser: {executablePath: browser.executablePath, source: browser.source, beginFrame: browser.beginFrame},
    ffmpeg: {path: ffmpeg.ffmpegPath, version: ffmpeg.version},
    variables: compiled.variables,
  })
  const compiledAt = performance.now()

  const workDir = await mkdtemp(join(tmpdir(), 'engine-render-'))
  try {
    const media = await prepareMedia({plan, browser, pool: request.pool, ffmpeg, frameFormat: options.videoFrameFormat, workDir, signal})
    plan.runtime.media = media.runtime
    for (const warning of media.warnings) emit({type: 'warning', ...warning})
    const hdr = decideHdrOutput({hdr: options.hdr, sdr: options.sdr, format: plan.format, gpu: plan.encode.gpu, sources: media.hdrTransfer})
    if (hdr.transfer) plan.encode.hdr = hdr.transfer
    if (hdr.warning) emit({type: 'warning', ...hdr.warning})
    const audioTrack = join(workDir, 'audio.wav')
    const durationSeconds = (plan.totalFrames * plan.fps.den) / plan.fps.num
    // The mix runs (once, offline) while the frames are captured.
    const mixed = mixAudioTrack({clips: media.clips, durationSeconds, outputPath: audioTrack, ffmpegPath: ffmpeg.ffmpegPath, signal})
    mixed.catch(() => {})
    emit({type: 'stage', stage: 'capture'})
    const meter = new ProgressMeter(plan.totalFrames, (frame, framesPerSecond, etaSeconds) =>
      emit({type: 'progress', stage: 'capture', frame, totalFrames: plan.totalFrames, framesPerSecond, etaSeconds}),
    )
    const segments = await captureSegments({plan, ranges, browser, pool: request.pool, ffmpeg, workDir, signal, onFrame: () => meter.frameDone()})
    const capturedAt = performance.now()
    emit({type: 'stage', stage: 'assemble'})
    await assembleOutput({plan, segments, outputPath: output, ffmpeg, signal})
    if (await mixed) {
      try {
        await attachAudioTrack({format, outputPath: output, trackPath: audioTrack, ffmpegPath: ffmpeg.ffmpegPath, signal})
      } catch (error) {
        // A video that silently lost its sound is not a result: leave nothing at the output path.
        if (outputExtension(format) !== undefined) await rm(output, {force: true})
        throw error
      }
    }
    const finished = performance.now()

    const timings = {
      compileMs: Math.round(compiledAt - started),
      captureMs: Math.round(capturedAt - compiledAt),
      assembleMs: Math.round(finished - capturedAt),
      totalMs: Math.round(finished - started),
    }
    const bytes = await outputBytes(output)
    emit({type: 'stage', stage: 'done'})
    emit({
      type: 'done',
      output,
      bytes,
      totalFrames: plan.totalFrames,
      durationSeconds,
      framesPerSecond: Math.round((plan.totalFrames / ((finished - compiledAt) / 1000)) * 10) / 10,
      hdr: plan.encode.hdr ?? null,
      timings,
    })
    return {output, bytes, totalFrames: plan.totalFrames, durationSeconds, plan, timings}
  } finally {
    await rm(workDir, {recursive: true, force: true})
  }
}
