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
