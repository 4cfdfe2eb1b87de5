import {randomUUID} from 'node:crypto'
import {Slots} from './slots.js'

export interface MapRunItemCounts {
  pending: number
  running: number
  succeeded: number
  failed: number
  timedOut: number
  aborted: number
  total: number
  /** Items whose result a ResultWriter wrote to S3. */
  resultsWritten: number
}

/** Named like AWS's: the Map is over the tolerated failures, or its map run was stopped with its execution. */
export class MapRunError extends Error {
  constructor(name: 'States.ExceedToleratedFailureThreshold' | 'States.MapRunAborted', message: string) {
    super(message)
    this.name = name
  }
}

/**
 * One run of a Distributed Map on the local stack, with AWS's accounting: at most `maxConcurrency`
 * items at once (0: no limit), each item's child workflow counted pending, running, succeeded or
 * failed, and over `toleratedFailurePercentage` of the items failed the run fails, no further item
 * starts and the running ones are aborted.
 */
export class LocalMapRun {
  readonly mapRunArn: string
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' = 'RUNNING'
  readonly counts: MapRunItemCounts = {pending: 0, running: 0, succeeded: 0, failed: 0, timedOut: 0, aborted: 0, total: 0, resultsWritten: 0}
  /** What the Map state returned (its children's outputs, or where a ResultWriter put them): state data, under 256 KiB. */
  result?: unknown
  readonly startDate = Date.now()
  stopDate?: number
  private readonly stops = new Set<() => void>()
  private stopped = false

  constructor(
    readonly executionArn: string,
    stateMachineArn: string,
    label: string,
    readonly maxConcurrency: number,
    readonly toleratedFailurePercentage: number,
  ) {
    const name = stateMachineArn.split(':').at(-1)
    this.mapRunArn = `${stateMachineArn.replace(':stateMachine:', ':mapRun:').replace(/:[^:]+$/, '')}:${name}/${label}:${randomUUID()}`
  }

  /**
   * Runs every item through `runItem`, which resolves when the item's child workflow succeeds and
   * rejects when it fails; `onStop` registers how to stop that child when the run is aborted.
   */
  async run(items: readonly unknown[], runItem: (item: unknown, index: number, onStop: (stop: () => void) => void) => Promise<void>): Promise<void> {
    this.counts.total = items.length
    this.counts.pending = items.length
    const slots = new Slots(this.maxConcurrency > 0 ? this.maxConcurrency : items.length || 1)
    const all = items.map(async (item, index) => {
      await slots.acquire()
      try {
        if (this.stopped) return
        this.counts.pending--
        this.counts.running++
        let stop: (() => void) | undefined
        try {
          await runItem(item, index, (given) => {
            stop = given
            this.stops.add(given)
          })
          this.counts.running--
          this.counts.succeeded++
        } catch {
          this.counts.running--
          if (this.stopped) this.counts.aborted++
          else {
            this.counts.failed++
            if ((this.counts.failed * 100) / this.counts.total > this.toleratedFailurePercentage) this.end('FAILED')
          }
        } finally {
          if (stop) this.stops.delete(stop)
        }
      } finally {
        slots.release()
      }
    })
    await Promise.all(all)
    if (this.status === 'FAILED') {
      throw new MapRunError('States.ExceedToleratedFailureThreshold', `The specified tolerated failure threshold was exceeded (${this.counts.failed} of ${this.counts.total} items failed, ${this.toleratedFailurePercentage}% tolerated)`)
    }
    if (this.status === 'ABORTED') throw new MapRunError('States.MapRunAborted', 'The map run was aborted')
    this.end('SUCCEEDED')
  }

  /** Stops the run: no item starts any more and the running ones are stopped (their execution was). */
  abort(): void {
    this.end('ABORTED')
  }

  private end(status: 'SUCCEEDED' | 'FAILED' | 'ABORTED'): void {
    if (this.status !== 'RUNNING') return
    this.status = status
    this.stopDate = Date.now()
    if (status === 'SUCCEEDED') return
    this.stopped = true
    this.counts.aborted += this.counts.pending
    this.counts.pending = 0
    for (const stop of this.stops) stop()
  }
}
