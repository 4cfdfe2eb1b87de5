import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {testMilliseconds} from 'html-video-engine/internal/lib/trace/test-milliseconds.js'
import type {BucketObjects} from '../s3-objects.js'
import {readStop, stoppedError} from './render-stop.js'

/**
 * How often a running chunk looks for its render's stop marker: one HEAD request, so a 15-minute
 * chunk makes 450 of them (about 0.0002 USD) and stops within this long of a failure or cancel.
 */
export const STOP_POLL_MS = 2000

/**
 * Test-only: the stop poll in ms. The test suite's local stacks set it (test/support/shared-stack.ts),
 * so that the chunks its cancel and failure tests stop do not burn CPU for up to 2 s after the
 * marker; on Lambda nothing sets it and a chunk looks every STOP_POLL_MS.
 */
export const STOP_POLL_ENV = 'ENGINE_TEST_STOP_POLL_MS'

function stopPollMs(): number {
  return testMilliseconds(STOP_POLL_ENV, STOP_POLL_MS, 1)
}

/**
 * A running chunk's watch on its render: the stop marker (a failure elsewhere, a cancel, a stopped
 * execution) and the render's deadline (`--timeout`). Either aborts `signal`, which stops the
 * capture before its next segment and kills the browser at once; `reason` is then the error the
 * chunk fails with. `check()` looks once more, at the moments the chunk is about to store
 * something, so that no upload starts once the render is stopped.
 */
export class ChunkStopWatch {
  private readonly controller = new AbortController()
  private readonly timers: NodeJS.Timeout[] = []
  private polling: Promise<void> | undefined

  private constructor(
    private readonly bucket: BucketObjects,
    private readonly renderId: string,
    private readonly chunk: number,
  ) {}

  /** Throws at once when the render is already stopped or past its deadline. */
  static async start(bucket: BucketObjects, renderId: string, chunk: number, deadline: string | undefined, pollMs = stopPollMs()): Promise<ChunkStopWatch> {
    const watch = new ChunkStopWatch(bucket, renderId, chunk)
    await watch.look()
    if (deadline !== undefined) {
      const remaining = Date.parse(deadline) - Date.now()
      if (remaining <= 0) watch.abort(timedOutError(renderId, chunk, deadline))
      else watch.timers.push(setTimeout(() => watch.abort(timedOutError(renderId, chunk, deadline)), remaining))
    }
    watch.rethrow()
    watch.timers.push(
      setInterval(() => {
        // One request at a time; a failed look is tried again at the next tick.
        watch.polling ??= watch
          .look()
          .catch(() => {})
          .finally(() => (watch.polling = undefined))
      }, pollMs),
    )
    for (const timer of watch.timers) timer.unref()
    return watch
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** The error that stopped the chunk, once something did. */
  get reason(): EngineError | undefined {
    return this.signal.aborted ? (this.signal.reason as EngineError) : undefined
  }

  /** Looks for the marker now; throws the stop's error when the chunk must not go on. */
  async check(): Promise<void> {
    await this.look()
    this.rethrow()
  }

  /** Stops watching (waits for a look in flight, so none outlives the invocation). */
  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer)
    await this.polling
  }

  private async look(): Promise<void> {
    if (this.signal.aborted) return
    const stop = await readStop(this.bucket, this.renderId)
    if (stop) this.abort(stoppedError(this.renderId, this.chunk, stop))
  }

  private abort(error: EngineError): void {
    if (!this.signal.aborted) this.controller.abort(error)
  }

  private rethrow(): void {
    if (this.reason) throw this.reason
  }
}

function timedOutError(renderId: string, chunk: number, deadline: string): EngineError {
  return new EngineError('TIMED_OUT', `render ${renderId} ran past its deadline ${deadline} (its --timeout): chunk ${chunk} stopped; render with a longer --timeout, or more, smaller chunks`, {
    renderId,
    chunk,
    deadline,
  })
}
