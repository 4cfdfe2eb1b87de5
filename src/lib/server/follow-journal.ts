import type {IncomingMessage, ServerResponse} from 'node:http'
import {EngineError} from '../errors/engine-error.js'
import type {EventJournal} from './event-journal.js'
import {EventStream} from './sse.js'

/**
 * Streams a request's events after `afterId` as server-sent events with their ids, live until its
 * final event (then the stream ends; 204 No Content when `afterId` is the final event's) or until
 * the client goes. Resolves when either happened.
 */
export function followJournal(res: ServerResponse, journal: EventJournal, afterId: number, redact: (text: string) => string): Promise<void> {
  // Resumed after the final event: nothing will ever follow. 204 is how the SSE standard tells an
  // EventSource to stop reconnecting (an open stream of heartbeats would keep it waiting forever).
  if (journal.final !== undefined && afterId >= journal.latestId) {
    res.writeHead(204).end()
    return Promise.resolve()
  }
  const stream = new EventStream(res, redact)
  return new Promise((resolve) => {
    let stop = () => {}
    const end = () => {
      stop()
      resolve()
    }
    res.once('close', end)
    stop = journal.follow(afterId, ({id, event}) => {
      stream.send(event, id)
      if (event.type === 'complete' || event.type === 'error') {
        stream.end()
        end()
      }
    })
    // Nothing to replay (a resume at the newest id, a request still queued): the headers go now, the heartbeat starts.
    if (!stream.closed) stream.open()
    if (stream.closed) end()
  })
}

/**
 * The id after which a resumed stream starts: the `Last-Event-ID` header a reconnecting
 * EventSource sends (or `?lastEventId=` for clients that cannot set headers); 0 replays everything.
 */
export function lastEventId(req: IncomingMessage, query: URLSearchParams, journal: EventJournal): number {
  const header = req.headers['last-event-id']
  const text = (Array.isArray(header) ? header[0] : header) ?? query.get('lastEventId') ?? '0'
  const value = /^\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN
  if (!Number.isSafeInteger(value) || value > journal.latestId) {
    throw new EngineError(
      'INVALID_REQUEST',
      `Last-Event-ID: "${text.slice(0, 40)}" is not an event id of this request; send the id of the last event received (0 to ${journal.latestId}), or none to get every event`,
      {field: 'Last-Event-ID', value: text.slice(0, 40)},
    )
  }
  return value
}
