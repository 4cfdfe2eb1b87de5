/** How frames are taken from the browser (see BrowserChoice.beginFrame). */
export type CaptureMode = 'begin-frame' | 'screenshot'

export interface BenchmarkConfiguration {
  workers: number
  captureMode: CaptureMode
}

export interface BenchmarkMeasurement extends BenchmarkConfiguration {
  /** Frames of the render divided by its wall-clock time, browser start and assembly included. */
  framesPerSecond: number
  seconds: number
}

export interface BenchmarkRecommendation extends BenchmarkConfiguration {
  framesPerSecond: number
}

export interface BenchmarkResult {
  /** Path of the measured composition, or "built-in reference". */
  composition: string
  width: number
  height: number
  fps: string
  format: string
  quality: string
  /** Frames of each measured render. */
  frames: number
  cores: number
  /** What `--workers auto` picks on this machine. */
  autoWorkers: number
  configurations: BenchmarkMeasurement[]
  recommendation: BenchmarkRecommendation
}
