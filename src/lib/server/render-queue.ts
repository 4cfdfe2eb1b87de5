import {EngineError} from '../errors/engine-error.js'

export interface QueueStatus {
  maxConcurrentRenders: number
  activeRenders: number
  queuedRenders: number
}

/** What the queue tells one entry about its place; `onQueued` fires again whenever the position changes. */
export interface QueueCallbacks {
  /** 1 = the next entry to start. */
  onQueued?(position: number): void
  onStarted?(): void
}

/** Runs one job in a slot. It must stop (and clean up) soon after `signal` aborts. */
export type QueueRunner<Job, Result> = (job: Job, signal: AbortSignal) => Promise<Result>

export interface RenderQueueOptions<Job, Result> {
  maxConcurrentRenders: number
  /** Entries allowed to wait; a submission beyond it is refused with QUEUE_FULL. Unlimited when absent. */
  maxQueue?: number
  run: QueueRunner<Job, Result>
}

interface Entry<Job, Result> {
  id: string
  job: Job
  callbacks: QueueCallbacks
  resolve(result: Result): void
  reject(error: unknown): void
}

/**
 * First-in-first-out queue with a fixed number of slots. Entries start strictly in submission
 * order; a slot is released only when the runner has settled, so a cancelled render has finished
 * cleaning up before the next one starts.
 */
export class RenderQueue<Job, Result> {
  private readonly waiting: Entry<Job, Result>[] = []
  private readonly active = new Map<string, AbortController>()

  constructor(private readonly options: RenderQueueOptions<Job, Result>) {}

  status(): QueueStatus {
    return {
      maxConcurrentRenders: this.options.maxConcurrentRenders,
      activeRenders: this.active.size,
      queuedRenders: this.waiting.length,
    }
  }

  /** Position of a waiting entry (1 = next), or undefined when it is not waiting. */
  position(id: string): number | undefined {
    const index = this.waiting.findIndex((entry) => entry.id === id)
    return index === -1 ? undefined : index + 1
  }

  isActive(id: string): boolean {
    return this.active.has(id)
  }

  /** Resolves or rejects with the runner's outcome; rejects with CANCELLED when cancelled while waiting. */
  submit(id: string, job: Job, callbacks: QueueCallbacks = {}): Promise<Result> {
    if (this.active.has(id) || this.position(id) !== undefined) throw new Error(`queue entry ${id} already exists`)
    const mustWait = this.waiting.length > 0 || this.active.size >= this.options.maxConcurrentRenders
    const {maxQueue} = this.options
    if (mustWait && maxQueue !== undefined && this.waiting.length >= maxQueue) {
      throw new EngineError(
        'QUEUE_FULL',
        `the render queue is full (${this.waiting.length} waiting, --max-queue ${maxQueue}); try again when a render has finished`,
        this.status(),
      )
    }
    return new Promise<Result>((resolve, reject) => {
      const entry: Entry<Job, Result> = {id, job, callbacks, resolve, reject}
      if (mustWait) {
        this.waiting.push(entry)
        callbacks.onQueued?.(this.waiting.length)
      } else {
        this.start(entry)
      }
    })
  }

  /**
   * Removes a waiting entry (its promise rejects with `reason`) or aborts a running one (its
   * promise settles when the runner has stopped). Returns false when the id is unknown.
   */
  cancel(id: string, reason: unknown = new EngineError('CANCELLED', 'the render was cancelled')): boolean {
    const index = this.waiting.findIndex((entry) => entry.id === id)
    if (index !== -1) {
      const [entry] = this.waiting.splice(index, 1)
      entry.reject(reason)
      this.announcePositions(index)
      return true
    }
    const controller = this.active.get(id)
    if (!controller) return false
    controller.abort(reason)
    return true
  }

  private start(entry: Entry<Job, Result>): void {
    const controller = new AbortController()
    this.active.set(entry.id, controller)
    entry.callbacks.onStarted?.()
    Promise.resolve()
      .then(() => {
        controller.signal.throwIfAborted()
        return this.options.run(entry.job, controller.signal)
      })
      .then(entry.resolve, entry.reject)
      .finally(() => {
        this.active.delete(entry.id)
        this.startWaiting()
      })
  }

  private startWaiting(): void {
    let started = 0
    while (this.waiting.length > 0 && this.active.size < this.options.maxConcurrentRenders) {
      this.start(this.waiting.shift()!)
      started++
    }
    if (started > 0) this.announcePositions(0)
  }

  /** Tells every entry from `fromIndex` on its (changed) position. */
  private announcePositions(fromIndex: number): void {
    for (let index = fromIndex; index < this.waiting.length; index++) this.waiting[index].callbacks.onQueued?.(index + 1)
  }
}
