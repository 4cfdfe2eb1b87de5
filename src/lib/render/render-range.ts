import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import type {CaptureWorker} from '../capture/index.js'
import type {SegmentRef} from '../encode/format-plugin.js'
import {explainFullDisk} from '../errors/no-space.js'
import type {EngineError} from '../errors/engine-error.js'
import {ensureFontFiles} from '../fonts/ensure-font-files.js'
import {ensureMediaFrames} from '../media/ensure-media-frames.js'
import {gridSegments} from '../plan/segment-grid.js'
import {workerCount} from '../plan/worker-count.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import type {PageFontReport} from '../fonts/page/page-fonts.js'
import type {ReadyReport} from '../runtime/page-protocol.js'
import type {PageRequests} from '../sandbox/page-requests.js'
import {captureSegments} from './capture-segments.js'

export interface RenderRangeOptions {
  /** The browser for this plan (see browserForPlan). */
  browser: BrowserChoice
  pool?: BrowserPool
  requests: PageRequests
  ffmpeg: {ffmpegPath: string; ffprobePath: string}
  /** Where the segments are written; the caller removes it. */
  workDir: string
  /** Capture workers (see rangeWorkers). */
  workers: number
  /** Pages each worker alternates frames between (see captureSegments; default 1). */
  pagesPerWorker?: 1 | 2
  /** Font packages handed over with the render (a serverless site's), beside this machine's. */
  fontPackages?: readonly string[]
  signal?: AbortSignal
  /** Each frame once it is handed to its encoder (frame index, the captured image). */
  onFrame: (index: number, image: Buffer) => void
  /** Each worker's page once it is ready, before its first frame; throwing stops the render. */
  onReady?: (report: ReadyReport) => void
  /** Run once on the first worker's ready page, before it captures (see captureSegments); throwing stops the render. */
  onFirstPage?: (worker: CaptureWorker) => Promise<void>
  /** Under `--page-errors warn`: the uncaught errors each worker's pages recorded (the same one may come again). */
  onPageErrors?: (errors: EngineError[]) => void
  /** What the page's text was drawn with during each captured segment; throwing stops the render. */
  onFontSamples?: (report: PageFontReport) => void
}

/** Capture workers for a range: as asked, within the cores, and never more than its segments. */
export function rangeWorkers(plan: Pick<RenderPlan, 'segmentFrames'>, range: FrameRange, requested: number | 'auto', cores: number): number {
  return workerCount(requested, cores, gridSegments(range, plan.segmentFrames).length)
}

/**
 * Renders the frames of `range` of a finished plan into encoded segments, on this machine: the
 * range is cut on the plan's fixed segment grid, so any split of a render (workers, Lambda chunks)
 * encodes the same segments, which join by stream copy. Font files and extracted video frames the
 * plan names are made present here first (a plan finished on another machine names them by content).
 */
export async function renderRange(plan: Readonly<RenderPlan>, range: FrameRange, options: RenderRangeOptions): Promise<SegmentRef[]> {
  await Promise.all([
    ensureFontFiles(plan.runtime.fonts, process.env, options.fontPackages),
    ensureMediaFrames({plan, browser: options.browser, pool: options.pool, ffmpeg: options.ffmpeg, workDir: options.workDir, requests: options.requests, signal: options.signal}),
  ])
  const segments = gridSegments(range, plan.segmentFrames)
  return captureSegments({...options, plan, segments}).catch(async (error: unknown) => Promise.reject(await explainFullDisk(error, options.workDir)))
}
