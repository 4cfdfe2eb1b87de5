import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import {openCaptureWorker, type CaptureWorker} from '../capture/index.js'
import type {PageRequests} from '../sandbox/page-requests.js'
import {EngineError, isEngineError} from '../errors/engine-error.js'
import {ENCODER_THREADS} from '../encode/deterministic-args.js'
import {getFormat} from '../encode/format-registry.js'
import type {SegmentRef} from '../encode/format-plugin.js'
import {gpuEncoderByName} from '../encode/gpu/gpu-encoders.js'
import {openSegmentEncoder, type SegmentEncoder} from '../encode/segment-encoder.js'
import {segmentPath} from '../encode/segment-path.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import type {PageFontReport} from '../fonts/page/page-fonts.js'
import {ENGINE_GLOBAL, type ReadyReport} from '../runtime/page-protocol.js'
import {endSpan, spanStart, traceSpan} from '../trace/timeline.js'

export interface CaptureSegmentsOptions {
  plan: RenderPlan
  /** Segments of the plan's grid (see gridSegments), in frame order. */
  segments: readonly FrameRange[]
  /** Browser workers sharing the segments; never more are started than there are segments. */
  workers: number
  /**
   * Pages each worker alternates frames between (default 1; renderComposition chooses with
   * defaultPagesPerWorker): two seek one frame while the other draws (see CaptureWorkerOptions.pages).
   */
  pagesPerWorker?: 1 | 2
  browser: BrowserChoice
  /** Warm browser processes shared between renders; without it each worker launches its own. */
  pool?: BrowserPool
  /** The render's request policy, shared by every worker's page. */
  requests: PageRequests
  ffmpeg: {ffmpegPath: string}
  workDir: string
  signal?: AbortSignal
  /** Each frame once it is handed to its encoder (frame index, the captured image). */
  onFrame: (index: number, image: Buffer) => void
  /** Each worker's page once it is ready, before its first frame; throwing stops the render. */
  onReady?: (report: ReadyReport) => void
  /**
   * Run once, on the first worker whose page is ready, before that worker captures (a batch row's
   * text check on the render's own page); throwing stops the render.
   */
  onFirstPage?: (worker: CaptureWorker) => Promise<void>
  /** What the page's text was drawn with while a segment was captured (see fontSamples); throwing stops the render. */
  onFontSamples?: (report: PageFontReport) => void
  /** Under `--page-errors warn`: the uncaught errors each worker's pages recorded. */
  onPageErrors?: (errors: EngineError[]) => void
}

/**
 * Renders grid segments with parallel capture workers, each its own browser process. A worker
 * takes the next segment from a shared queue, captures it into that segment's own encoder, and
 * takes another while the encoder finishes, so capture and encode overlap on every core and a
 * fast worker simply does more segments. The first failure stops every worker; nothing they wrote
 * survives, since it all lives in the render's work directory.
 */
export async function captureSegments(options: CaptureSegmentsOptions): Promise<SegmentRef[]> {
  const {plan, segments} = options
  const stop = new AbortController()
  const onOuterAbort = () => stop.abort(new EngineError('CANCELLED', 'the render was cancelled'))
  options.signal?.addEventListener('abort', onOuterAbort, {once: true})
  const format = getFormat(plan.format)
  const gpuEncoder = plan.encode.gpuEncoder ? gpuEncoderByName(plan.encode.gpuEncoder) : undefined
  const results: SegmentRef[] = []
  const open = new Set<SegmentEncoder>()
  let next = 0
  let firstPage = options.onFirstPage

  const startEncoder = async (index: number): Promise<SegmentEncoder> => {
    const encoder = await traceSpan('encoder-start', {segment: index}, () =>
      openSegmentEncoder({plan, range: segments[index], outputPath: segmentPath(options.workDir, format, index), ffmpeg: options.ffmpeg, gpuEncoder, threads: ENCODER_THREADS}),
    )
    open.add(encoder)
    return encoder
  }

  const encodeSegment = async (index: number, started: Promise<SegmentEncoder>, capture: (range: FrameRange, encoder: SegmentEncoder) => Promise<void>): Promise<() => Promise<void>> => {
    const range = segments[index]
    const path = segmentPath(options.workDir, format, index)
    const encoder = await started
    await capture(range, encoder)
    return async () => {
      const draining = spanStart()
      await encoder.end()
      endSpan('segment-drain', draining, {segment: index})
      open.delete(encoder)
      results[index] = {path, range}
    }
  }

  const workers = Math.max(1, Math.min(options.workers, segments.length))
  const pages = options.pagesPerWorker ?? 1
  const runWorker = async (): Promise<void> => {
    // The worker's first segment's encoder starts while its page loads (a batch row's fixed cost).
    let claimed: number | undefined = next < segments.length ? next++ : undefined
    let started = claimed === undefined ? undefined : startEncoder(claimed)
    started?.catch(() => {})
    // An encoder started but never given frames (the page failed, or the render stopped) is ended here.
    const abortUnused = async () => {
      await started?.then((encoder) => encoder.abort(), () => {})
      started = undefined
    }
    let worker: CaptureWorker
    try {
      worker = await openCaptureWorker(plan, {browser: options.browser, pool: options.pool, requests: options.requests, signal: stop.signal, pages, onPageErrors: options.onPageErrors})
    } catch (error) {
      await abortUnused()
      throw error
    }
    const capture = (range: FrameRange, encoder: SegmentEncoder) =>
      worker.captureRange(range, async (frame, image) => {
        await encoder.write(image)
        options.onFrame(frame, image)
      })
    // The previous segment's encoder drains its last frames while this worker captures the next one.
    let finishing: Promise<void> = Promise.resolve()
    try {
      options.onReady?.(worker.ready)
      if (firstPage) {
        const hook = firstPage
        firstPage = undefined
        await hook(worker)
      }
      while ((claimed !== undefined || next < segments.length) && !stop.signal.aborted) {
        const index = claimed ?? next++
        const encoder = started ?? startEncoder(index)
        claimed = started = undefined
        const finish = await encodeSegment(index, encoder, capture)
        if (options.onFontSamples) options.onFontSamples(await worker.evaluate<PageFontReport>(`window.${ENGINE_GLOBAL}.fontSamples()`))
        const waited = spanStart()
        await finishing
        endSpan('segment-wait', waited, {worker: worker.id, segment: index})
        finishing = finish()
        finishing.catch(() => {})
      }
      // Nothing left to capture: the browser closes (or goes back to the pool) while the last encoder drains.
      await worker.close()
      await finishing
    } catch (error) {
      stop.abort(error)
      throw error
    } finally {
      await abortUnused()
      await worker.close()
    }
  }

  try {
    const settled = await Promise.allSettled(Array.from({length: workers}, runWorker))
    const failures = settled.filter((result): result is PromiseRejectedResult => result.status === 'rejected').map((r) => r.reason)
    if (failures.length > 0 || stop.signal.aborted) {
      await Promise.all([...open].map((encoder) => encoder.abort()))
      // Other workers fail with CANCELLED because the first one stopped them: report the cause.
      throw failures.find((reason) => !isEngineError(reason, 'CANCELLED')) ?? failures[0] ?? stop.signal.reason
    }
    return results
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort)
  }
}
