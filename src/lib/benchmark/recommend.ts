import type {BenchmarkMeasurement, BenchmarkRecommendation} from './benchmark-result.js'

/** Within this fraction of the fastest, fewer workers win: same speed for less memory (~256 MB each). */
export const SAME_SPEED = 0.05

/** The fastest configuration, preferring fewer workers when the gain is within measurement noise. */
export function recommend(measurements: readonly BenchmarkMeasurement[]): BenchmarkRecommendation {
  if (measurements.length === 0) throw new Error('recommend needs at least one measurement')
  const fastest = Math.max(...measurements.map((measurement) => measurement.framesPerSecond))
  const [choice] = measurements
    .filter((measurement) => measurement.framesPerSecond >= fastest * (1 - SAME_SPEED))
    .sort((a, b) => a.workers - b.workers || b.framesPerSecond - a.framesPerSecond)
  return {workers: choice.workers, captureMode: choice.captureMode, framesPerSecond: choice.framesPerSecond}
}

/** Worker counts worth measuring: 1 up to the cores, at most 4 (beyond that, a short render mostly measures start-up). */
export function workerCountsToMeasure(cores: number): number[] {
  const highest = Math.max(1, Math.min(4, cores))
  return Array.from({length: highest}, (_, index) => index + 1)
}
