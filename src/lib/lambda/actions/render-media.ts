import type {BrowserChoice} from '../../browser/browser-choice.js'
import {prepareMedia, type PreparedMedia} from '../../media/prepare-media.js'
import type {RenderPlan} from '../../plan/render-plan.js'
import type {PageRequests} from '../../sandbox/page-requests.js'

/**
 * The media stage of a local render, run on this invocation's copy of the site: sources are found
 * and probed the same way, and video frames are extracted into `workDir`. Each chunk extracts its
 * own frames rather than downloading the plan step's, because extracted frames live in the
 * machine's own cache, and extraction is deterministic: every chunk shows the
 * frames a local render shows.
 */
export function prepareSiteMedia(
  plan: RenderPlan,
  browser: BrowserChoice,
  ffmpeg: {ffmpegPath: string; ffprobePath: string},
  workDir: string,
  requests: PageRequests,
): Promise<PreparedMedia> {
  return prepareMedia({plan, browser, ffmpeg, frameFormat: 'auto', workDir, requests})
}
