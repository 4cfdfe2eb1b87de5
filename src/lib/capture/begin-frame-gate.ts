import type {Protocol} from 'puppeteer-core'
import type {FrameClock} from '../browser/browser-pool.js'
import {endSpan, spanStart, type TimelineSpan} from '../trace/timeline.js'
import type {CallLimit, PageConnection} from './page-connection.js'

export interface BeginFrameRequest {
  intervalMs: number
  screenshot?: Protocol.HeadlessExperimental.ScreenshotParams
  /** Who sends it, for the timeline's `begin-frame` spans. */
  trace?: Pick<TimelineSpan, 'worker' | 'page'>
}

/**
 * The begin-frames of one browser process, one at a time. The headless shell drives every page of
 * a process from one external begin-frame source: a begin-frame sent while another page's is still
 * in flight crashes its GPU process ("Got overlapping IssueExternalBeginFrame", seen with two pages
 * capturing at once). Pages of one process therefore take turns here; each frame takes its clock
 * tick when it is actually sent, so ticks reach the browser in increasing order.
 */
export class BeginFrameGate {
  private last: Promise<unknown> = Promise.resolve()

  constructor(private readonly clock: FrameClock) {}

  send(connection: PageConnection, request: BeginFrameRequest, limit: CallLimit): Promise<Protocol.HeadlessExperimental.BeginFrameResponse> {
    const turn = this.last.then(async () => {
      const started = spanStart()
      try {
        return await connection.send(
          'HeadlessExperimental.beginFrame',
          {frameTimeTicks: this.clock.advance(request.intervalMs), interval: request.intervalMs, ...(request.screenshot ? {screenshot: request.screenshot} : {})},
          limit,
        )
      } finally {
        endSpan('begin-frame', started, {...request.trace, screenshot: request.screenshot !== undefined})
      }
    })
    this.last = turn.catch(() => {})
    return turn
  }
}
