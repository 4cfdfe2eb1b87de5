import type {BrowserChoice} from '../browser/browser-choice.js'
import {resolveBrowser} from '../browser/resolve-browser.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {renderProfile} from './render-profile.js'
import {resolveProfileBrowser, type ProfileNotice} from './resolve-profile-browser.js'

/** The browser for a render: the profile's when `options.profile` names one, else the usual search. */
export async function resolveRenderBrowser(
  options: Pick<ResolvedRenderOptions, 'profile' | 'browserPath' | 'browserGpu'>,
): Promise<{browser: BrowserChoice; notices: ProfileNotice[]}> {
  if (!options.profile) return {browser: await resolveBrowser({browserPath: options.browserPath, browserGpu: options.browserGpu}), notices: []}
  return resolveProfileBrowser(renderProfile(options.profile), {browserPath: options.browserPath})
}
