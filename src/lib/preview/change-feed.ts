import type {ServerResponse} from 'node:http'
import type {ChangeEvent} from './client/preview-protocol.js'

/** Keeps idle event streams open through proxies and lets the page notice a dead server. */
const HEARTBEAT_MS = 15_000

/** The server-sent event streams of open player pages, told about every change on disk. */
export class ChangeFeed {
  revision = 0
  private readonly clients = new Set<ServerResponse>()
  private readonly heartbeat: NodeJS.Timeout

  constructor() {
    this.heartbeat = setInterval(() => {
      for (const res of this.clients) res.write(': keep-alive\n\n')
    }, HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  subscribe(res: ServerResponse): void {
    res.writeHead(200, {'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive'})
    // Flushes the headers, so that the page's EventSource opens now rather than at the first change.
    res.write(': connected\n\n')
    this.clients.add(res)
    res.once('close', () => this.clients.delete(res))
  }

  publish(files: string[]): ChangeEvent {
    const event: ChangeEvent = {type: 'change', revision: ++this.revision, files}
    for (const res of this.clients) res.write(`data: ${JSON.stringify(event)}\n\n`)
    return event
  }

  close(): void {
    clearInterval(this.heartbeat)
    for (const res of this.clients) res.end()
    this.clients.clear()
  }
}
