/**
 * Counts captured frames across workers and turns them into a rate and an ETA, throttled so that
 * listeners see at most a few updates a second plus the last one.
 */
export class ProgressMeter {
  private done = 0
  private lastEmit = 0
  private readonly startedAt = performance.now()

  constructor(
    private readonly total: number,
    private readonly emit: (frame: number, framesPerSecond: number, etaSeconds: number | null) => void,
    private readonly intervalMs = 250,
  ) {}

  frameDone(): void {
    this.done += 1
    const now = performance.now()
    if (this.done < this.total && now - this.lastEmit < this.intervalMs) return
    this.lastEmit = now
    const seconds = (now - this.startedAt) / 1000
    const rate = seconds > 0 ? this.done / seconds : 0
    this.emit(this.done, round(rate), rate > 0 ? round((this.total - this.done) / rate) : null)
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10
}
