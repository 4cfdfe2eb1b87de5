import type {StreamEvent} from '../../../src/lib/server/stream-events.js'
import {streamRender} from '../../../src/lib/server-client/server-api.js'

/** Every event of one `POST /render/stream`, until the server ends the stream. */
export async function streamEvents(url: string, body: Record<string, unknown>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = []
  for await (const event of streamRender({url}, body)) events.push(event)
  return events
}
