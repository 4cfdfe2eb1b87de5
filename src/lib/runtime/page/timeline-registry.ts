import type {RuntimeConfig} from '../runtime-config.js'
import type {InstanceScope} from './instance-scope.js'

/** The subset of a GSAP timeline (or anything shaped like one) the runtime drives. */
export interface SeekableTimeline {
  totalTime(time: number, suppressEvents?: boolean): unknown
  paused?(): boolean
  pause?(): unknown
  /** GSAP: seconds with repeats; one cycle. */
  totalDuration?(): number
  duration?(): number
  /** GSAP: renders `totalTime`; `force` renders even when the time has not moved. */
  render?(totalTime: number, suppressEvents?: boolean, force?: boolean): unknown
}

/** A GSAP timeline repeating forever reports about 1e10 s: anything longer than a day has no usable length. */
const ENDLESS_SECONDS = 24 * 3600

export interface RegisteredTimeline {
  compositionId: string
  /** Sub-composition instance the timeline belongs to; undefined for the root composition. */
  instanceKey?: string
  timeline: SeekableTimeline
}

/**
 * `window.__timelines`: authors register `window.__timelines[compositionId] = tl`. Two instances
 * of one sub-composition register under the same id, so the registry records each registration
 * with the instance whose scoped script made it, and keeps all of them.
 */
export class TimelineRegistry {
  readonly entries: RegisteredTimeline[] = []
  /** Bumped on every registration, so a seek can tell that a callback registered something new. */
  generation = 0
  readonly proxy: Record<string, unknown>
  private readonly target: Record<string, unknown> = {}

  constructor(
    private readonly config: RuntimeConfig,
    private readonly scope: InstanceScope,
  ) {
    this.proxy = new Proxy(this.target, {
      set: (target, property, value) => {
        target[property as string] = value
        if (typeof property === 'string') this.register(property, value)
        return true
      },
      deleteProperty: (target, property) => {
        delete target[property as string]
        if (typeof property === 'string') this.unregister(property)
        return true
      },
    })
  }

  /** Makes `window.__timelines` this registry; assigning a new object to it registers that object's entries. */
  install(win: Window): void {
    Object.defineProperty(win, '__timelines', {
      configurable: false,
      enumerable: true,
      get: () => this.proxy,
      set: (value: unknown) => {
        if (value === this.proxy || value === null || typeof value !== 'object') return
        for (const [id, timeline] of Object.entries(value)) this.proxy[id] = timeline
      },
    })
  }

  /**
   * Seconds of the longest timeline registered for the root composition, as the runtime seeks it
   * (repeats included); `endless` when one repeats forever, undefined without any.
   */
  rootSeconds(): number | 'endless' | undefined {
    let longest: number | 'endless' | undefined
    for (const entry of this.entries) {
      if (entry.instanceKey !== undefined) continue
      const seconds = lengthOf(entry.timeline)
      if (seconds === 'endless' || longest === 'endless') longest = 'endless'
      else if (seconds !== undefined && (longest === undefined || seconds > longest)) longest = seconds
    }
    return longest
  }

  private register(compositionId: string, value: unknown): void {
    if (!isSeekable(value)) {
      this.unregister(compositionId)
      return
    }
    const instanceKey = this.scope.current() ?? this.inferInstance(compositionId)
    const existing = this.entries.find((entry) => entry.compositionId === compositionId && entry.instanceKey === instanceKey)
    if (existing) existing.timeline = value
    else this.entries.push({compositionId, instanceKey, timeline: value})
    this.generation++
  }

  private unregister(compositionId: string): void {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i].compositionId === compositionId) this.entries.splice(i, 1)
  }

  /**
   * A registration made outside a scoped script (e.g. from a load handler the script added): the
   * root when the id is the root's, else the first instance of that composition without a
   * timeline yet.
   */
  private inferInstance(compositionId: string): string | undefined {
    if (compositionId === this.config.compositionId) return undefined
    const candidates = Object.entries(this.config.instances)
      .filter(([, instance]) => instance.compositionId === compositionId)
      .map(([key]) => key)
    return (
      candidates.find((key) => !this.entries.some((entry) => entry.compositionId === compositionId && entry.instanceKey === key)) ??
      candidates[0]
    )
  }
}

function lengthOf(timeline: SeekableTimeline): number | 'endless' | undefined {
  const seconds = timeline.totalDuration?.() ?? timeline.duration?.()
  if (typeof seconds !== 'number' || Number.isNaN(seconds) || seconds <= 0) return undefined
  return seconds >= ENDLESS_SECONDS ? 'endless' : seconds
}

function isSeekable(value: unknown): value is SeekableTimeline {
  return typeof value === 'object' && value !== null && typeof (value as SeekableTimeline).totalTime === 'function'
}
