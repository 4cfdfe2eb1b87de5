import type {ServerResponse} from 'node:http'

/** Comment lines keep idle connections (a request waiting in the queue) open through proxies. */
const HEARTBEAT_MS = 15_000

/**
 * A server-sent event stream of JSON messages. The response headers go out with the first
 * event, so that a request refused before it has any event can still get a plain JSON error.
 */
export class EventStream {
  private heartbeat?: NodeJS.Timeout
  private ended = false

  /** `redact` is applied to each event's JSON text (see pathRedactor). */
  constructor(
    private readonly res: ServerResponse,
    private readonly redact: (text: string) => string = (text) => text,
  ) {
    res.once('close', () => this.stopHeartbeat())
  }

  get opened(): boolean {
    return this.res.headersSent
  }

  /** True once the stream was ended by the server or the connection closed. */
  get closed(): boolean {
    return this.ended || this.res.destroyed
  }

  /** `id` becomes the event's SSE id: a client that reconnects sends the last one it got as Last-Event-ID. */
  send(data: unknown, id?: number): void {
    if (this.closed) return
    if (!this.opened) this.open()
    this.res.write(`${id === undefined ? '' : `id: ${id}\n`}data: ${this.redact(JSON.stringify(data))}\n\n`)
  }

  end(): void {
    if (this.closed) return
    this.ended = true
    this.stopHeartbeat()
    this.res.end()
  }

  /** Sends the headers now (they otherwise go with the first event), so that a client waiting for the next event knows the stream is there. */
  open(): void {
    if (this.opened || this.closed) return
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    })
    this.heartbeat = setInterval(() => this.res.write(': keep-alive\n\n'), HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat)
  }
}
