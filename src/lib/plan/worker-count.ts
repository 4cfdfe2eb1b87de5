import {MAX_WORKERS} from './render-options.js'

/** Spec rule: CPU cores minus 2, at least 1 (2 cores -> 1, 8 -> 6), never above the hard ceiling. */
export function defaultWorkerCount(cores: number): number {
  return Math.min(MAX_WORKERS, Math.max(1, cores - 2))
}

/** Workers actually used: never more than there are segments to share out, so none starts idle. */
export function workerCount(requested: number | 'auto', cores: number, segments: number): number {
  const wanted = requested === 'auto' ? defaultWorkerCount(cores) : requested
  return Math.max(1, Math.min(wanted, segments))
}

/** Cores each worker must have to itself before it loads a second page by default. */
export const CORES_PER_TWO_PAGE_WORKER = 4
/** Frames each worker must capture before a second page's load pays back. */
export const MIN_FRAMES_FOR_TWO_PAGES = 60

/**
 * Pages each worker alternates frames between when the caller does not say. A second page lets a
 * worker seek one frame while the other page draws the previous one (up to 1.25-1.4x faster
 * capture), for one more page's memory (~85 MiB) and a little more CPU a frame. It pays only where
 * CPU is left over: a worker's capture chain and its encoders take about two cores, so with fewer
 * than four cores each (always the case with `--workers auto` beyond a handful of segments) the
 * render is bound by CPU and one page is faster. It does where segments cap the workers: a short
 * render on a many-core machine, or `--workers` set below the cores.
 */
export function defaultPagesPerWorker(cores: number, workers: number, frames: number): 1 | 2 {
  return cores >= CORES_PER_TWO_PAGE_WORKER * workers && frames / workers >= MIN_FRAMES_FOR_TWO_PAGES ? 2 : 1
}
