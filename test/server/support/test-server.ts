import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {RenderStreamBody} from '../../../src/lib/server/request-schema.js'
import {resolveServerSettings, type ServerFlags} from '../../../src/lib/server/server-settings.js'
import {startServer, type RunningServer, type StartServerOptions} from '../../../src/lib/server/start-server.js'
import type {StreamEvent} from '../../../src/lib/server/stream-events.js'
import {streamRender, type ServerConnection} from '../../../src/lib/server-client/server-api.js'

export interface TestServer {
  server: RunningServer
  root: string
  connection: ServerConnection
  close(): Promise<void>
}

/** A server on a free loopback port whose root holds `comp.html`; `close` removes everything. */
export async function startTestServer(flags: ServerFlags = {}, options: StartServerOptions & {env?: NodeJS.ProcessEnv} = {}): Promise<TestServer> {
  const root = await mkdtemp(join(tmpdir(), 'engine-serve-test-'))
  await writeFile(join(root, 'comp.html'), '<html></html>')
  const settings = await resolveServerSettings({port: 0, root, ...flags}, options.env ?? {})
  const server = await startServer(settings, options)
  return {
    server,
    root,
    connection: {url: server.url, token: settings.token},
    close: async () => {
      await server.close()
      await rm(root, {recursive: true, force: true})
    },
  }
}

export interface OpenStream {
  events: StreamEvent[]
  /** Resolves with the first event (already received or still to come) that matches. */
  waitFor(predicate: (event: StreamEvent) => boolean): Promise<StreamEvent>
  /** Settles when the stream ends: with the final event, or the client-side error. */
  done: Promise<StreamEvent>
}

/** Posts a render and collects its events in the background. */
export function openStream(connection: ServerConnection, body: RenderStreamBody, signal?: AbortSignal): OpenStream {
  const events: StreamEvent[] = []
  const waiters: {predicate: (event: StreamEvent) => boolean; resolve: (event: StreamEvent) => void}[] = []
  const done = (async () => {
    for await (const event of streamRender(connection, body, signal)) {
      events.push(event)
      for (const waiter of waiters.filter((w) => w.predicate(event))) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(event)
      }
    }
    return events.at(-1)!
  })()
  done.catch(() => {})
  return {
    events,
    done,
    waitFor(predicate) {
      const seen = events.find(predicate)
      if (seen) return Promise.resolve(seen)
      return new Promise<StreamEvent>((resolve, reject) => {
        waiters.push({predicate, resolve})
        done.then(() => reject(new Error(`stream ended without the awaited event; got ${JSON.stringify(events)}`)), reject)
      })
    },
  }
}

export const ofType =
  <T extends StreamEvent['type']>(type: T) =>
  (event: StreamEvent): boolean =>
    event.type === type

/** Polls until `check` stops throwing (for state that changes just after an event). */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
