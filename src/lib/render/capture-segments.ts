import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import {openCaptureWorker} from '../capture/index.js'
import {EngineError, isEngineError} from '../errors/engine-error.js'
import {getFormat} from '../encode/format-registry.js'
import type {SegmentRef} from '../encode/format-plugin.js'
import {gpuEncoderByName} from '../encode/gpu/gpu-encoders.js'
import {openSegmentEncoder, type SegmentEncoder} from '../encode/segment-encoder.js'
import {segmentPath} from '../encode/segment-path.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'

/**
 * x264 output depends on its thread count. A fixed count per worker keeps the bits the same on
 * every machine and in every chunk; two threads let one worker's encode overlap its own capture.
 */
export const ENCODER_THREADS = 2

export interface CaptureSegmentsOptions {
  plan: RenderPlan
  ranges: readonly FrameRange[]
  browser: BrowserChoice
  /** Warm browser processes shared between renders; without it each worker launches its own. */
  pool?: BrowserPool
  ffmpeg: {ffmpegPath: string}
  workDir: string
  signal?: AbortSignal
  onFrame: () => void
}

/**
 * Runs one capture worker (its own browser process) and one encoder per frame range, all at
 * once, so that capture and encode overlap on every core. The first failure stops every worker;
 * nothing they wrote survives, since it all lives in the render's work directory.
 */
export async function captureSegments(options: CaptureSegmentsOptions): Promise<SegmentRef[]> {
  const {plan, ranges} = options
  const stop = new AbortController()
  const onOuterAbort = () => stop.abort(new EngineError('CANCELLED', 'the render was cancelled'))
  options.signal?.addEventListener('abort', onOuterAbort, {once: true})
  const format = getFormat(plan.format)
  const gpuEncoder = plan.encode.gpuEncoder ? gpuEncoderByName(plan.encode.gpuEncoder) : undefined

  const runWorker = async (range: FrameRange, index: number): Promise<SegmentRef> => {
    const path = segmentPath(options.workDir, format, index)
    let encoder: SegmentEncoder | undefined
    const worker = await openCaptureWorker(plan, {browser: options.browser, pool: options.pool, signal: stop.signal})
    try {
      encoder = await openSegmentEncoder({plan, range, outputPath: path, ffmpeg: options.ffmpeg, gpuEncoder, threads: ENCODER_THREADS})
      const sink = encoder
      await worker.captureRange(range, async (_frame, image) => {
        await sink.write(image)
        options.onFrame()
      })
      await encoder.end()
      return {path, range}
    } catch (error) {
      stop.abort(error)
      await encoder?.abort()
      throw error
    } finally {
      await worker.close()
    }
  }

  try {
    const results = await Promise.allSettled(ranges.map(runWorker))
    const failures = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected').map((r) => r.reason)
    if (failures.length > 0) {
      // Other workers fail with CANCELLED because the first one stopped them: report the cause.
      throw failures.find((reason) => !isEngineError(reason, 'CANCELLED')) ?? failures[0]
    }
    return results.map((result) => (result as PromiseFulfilledResult<SegmentRef>).value)
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort)
  }
}
