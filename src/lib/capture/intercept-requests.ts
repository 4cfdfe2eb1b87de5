import type {Protocol} from 'puppeteer-core'
import type {PageRequests} from '../sandbox/page-requests.js'
import type {CallLimit, PageConnection} from './page-connection.js'

/** How the browser logs a URL it refused to load without making a request (`file:` from an http page). */
const REFUSED = /^(?:Not allowed to load local resource|Fetch API cannot load):? (\S+?)\.?(?:\s|$)/

/**
 * Every request of the page (documents, frames, scripts, images, fonts, fetch/XHR) is paused and
 * answered by `requests`, so the page reaches exactly what the sandbox policy allows. What is not
 * interceptable here (WebSockets, WebRTC) is stopped by the browser's launch flags. URLs the
 * browser refuses by itself never become requests: they are reported from its log.
 */
export async function interceptRequests(connection: PageConnection, requests: PageRequests, limit: CallLimit): Promise<void> {
  connection.session.on('Fetch.requestPaused', (event: Protocol.Fetch.RequestPausedEvent) => {
    void answer(connection, requests, event)
  })
  connection.session.on('Log.entryAdded', ({entry}: Protocol.Log.EntryAddedEvent) => {
    const refused = REFUSED.exec(entry.text)
    if (refused) requests.reportRefused(refused[1])
  })
  await connection.send('Fetch.enable', {patterns: [{urlPattern: '*', requestStage: 'Request'}]}, limit)
  await connection.send('Log.enable', undefined, limit)
}

async function answer(connection: PageConnection, requests: PageRequests, event: Protocol.Fetch.RequestPausedEvent): Promise<void> {
  const {requestId} = event
  const response = await requests.answer(event.request.url, event.resourceType).catch(() => 'blocked' as const)
  const reply =
    response === 'browser'
      ? connection.send('Fetch.continueRequest', {requestId})
      : response === 'blocked'
        ? connection.send('Fetch.failRequest', {requestId, errorReason: 'BlockedByClient'})
        : connection.send('Fetch.fulfillRequest', {requestId, responseCode: response.status, responseHeaders: response.headers, body: response.body.toString('base64')})
  // The page may be gone (closed or crashed); the capture reports that itself.
  await reply.catch(() => {})
}
