import {MAX_WORKERS} from './render-options.js'
import type {FrameRange} from './render-plan.js'

/** Spec rule: CPU cores minus 2, at least 1 (2 cores -> 1, 8 -> 6), never above the hard ceiling. */
export function defaultWorkerCount(cores: number): number {
  return Math.min(MAX_WORKERS, Math.max(1, cores - 2))
}

/** Workers actually used: never more than there are frames, so no worker gets an empty range. */
export function workerCount(requested: number | 'auto', cores: number, totalFrames: number): number {
  const wanted = requested === 'auto' ? defaultWorkerCount(cores) : requested
  return Math.max(1, Math.min(wanted, totalFrames))
}

/** Contiguous ranges, as equal as possible, earlier ranges taking the remainder. */
export function splitFrames(totalFrames: number, workers: number): FrameRange[] {
  const ranges: FrameRange[] = []
  const base = Math.floor(totalFrames / workers)
  const extra = totalFrames % workers
  let start = 0
  for (let i = 0; i < workers; i++) {
    const size = base + (i < extra ? 1 : 0)
    if (size === 0) continue
    ranges.push({start, end: start + size})
    start += size
  }
  return ranges
}
