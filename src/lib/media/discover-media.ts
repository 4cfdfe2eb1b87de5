import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import {openCaptureWorker} from '../capture/index.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {ENGINE_GLOBAL} from '../runtime/page-protocol.js'
import type {PageMediaElement} from '../runtime/runtime-media.js'
import type {PageRequests} from '../sandbox/page-requests.js'

/** A cheap test of the compiled page: without any of these, no `<video>`/`<audio>` can exist. */
const MEDIA_HINT = /<(video|audio)\b|\b(video|audio)['"`]|HTMLMediaElement|Audio\(/i

export function mayHaveMedia(html: string): boolean {
  return MEDIA_HINT.test(html)
}

export interface MediaPage {
  /** The media elements after the page's scripts ran; `sourceSeconds` times those without `data-duration`. */
  list(sourceSeconds?: Record<number, number>): Promise<PageMediaElement[]>
  close(): Promise<void>
}

/**
 * Opens the composition once, without capturing, to see its media as its scripts left it: a
 * `src` assigned from a variable counts like one written in the HTML.
 */
export async function openMediaPage(
  plan: RenderPlan,
  options: {browser: BrowserChoice; pool?: BrowserPool; requests: PageRequests; signal?: AbortSignal},
): Promise<MediaPage> {
  const worker = await openCaptureWorker(plan, {browser: options.browser, pool: options.pool, requests: options.requests, signal: options.signal})
  return {
    list: (sourceSeconds = {}) => worker.evaluate<PageMediaElement[]>(`window.${ENGINE_GLOBAL}.mediaElements(${JSON.stringify(sourceSeconds)})`),
    close: () => worker.close(),
  }
}
