import type {StreamEvent} from './stream-events.js'

/** One event of a request's stream with its SSE id (1, 2, 3 … within the request). */
export interface JournalEntry {
  id: number
  event: StreamEvent
}

type Listener = (entry: JournalEntry) => void

/**
 * Every event of one render request, numbered, so that a client whose connection dropped can ask
 * for what it missed (`Last-Event-ID`) and follow the rest. Bounded: a `progress` event is
 * superseded by the next one (a resuming client needs where the render is, not where it was), so
 * the journal holds the few lifecycle events, the warnings (already collapsed per code) and one
 * progress event.
 */
export class EventJournal {
  private readonly entries: JournalEntry[] = []
  private readonly listeners = new Set<Listener>()
  private lastId = 0

  append(event: StreamEvent): void {
    const entry = {id: ++this.lastId, event}
    const previous = this.entries.at(-1)
    if (previous?.event.type === 'progress' && event.type === 'progress') this.entries.pop()
    this.entries.push(entry)
    for (const listener of this.listeners) listener(entry)
  }

  /** The id of the newest event (0 before the first). */
  get latestId(): number {
    return this.lastId
  }

  /** The final `complete` or `error` event, once sent. */
  get final(): Extract<StreamEvent, {type: 'complete' | 'error'}> | undefined {
    const last = this.entries.at(-1)?.event
    return last?.type === 'complete' || last?.type === 'error' ? last : undefined
  }

  /** The newest event of a type. */
  latest<T extends StreamEvent['type']>(type: T): Extract<StreamEvent, {type: T}> | undefined {
    for (let index = this.entries.length - 1; index >= 0; index--) {
      const {event} = this.entries[index]
      if (event.type === type) return event as Extract<StreamEvent, {type: T}>
    }
    return undefined
  }

  /**
   * Sends the retained events after `afterId` to `listener`, then each new one as it comes, until
   * the returned function is called.
   */
  follow(afterId: number, listener: Listener): () => void {
    for (const entry of this.entries) if (entry.id > afterId) listener(entry)
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
