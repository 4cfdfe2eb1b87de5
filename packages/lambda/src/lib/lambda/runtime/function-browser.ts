import type {BrowserChoice} from 'html-video-engine/internal/lib/browser/browser-choice.js'
import {DETERMINISTIC_PROFILE} from 'html-video-engine/internal/lib/profile/render-profile.js'
import {resolveProfileBrowser} from 'html-video-engine/internal/lib/profile/resolve-profile-browser.js'

/**
 * The function captures under the deterministic profile (its flags, fonts and environment, with
 * the bundle's Chromium), as `engine render --profile deterministic` does on a machine with the same
 * build: the two give the same file.
 */
export async function functionProfileBrowser(env: NodeJS.ProcessEnv = process.env): Promise<BrowserChoice> {
  return (await resolveProfileBrowser(DETERMINISTIC_PROFILE, {env})).browser
}
