import {probeBrowser} from '../browser/probe-browser.js'
import {resolveBrowser} from '../browser/resolve-browser.js'
import {PINNED_BROWSER, SYSTEM_PACKAGE_FIX} from '../browser/pinned-browser.js'
import {browserCacheDir} from '../browser/engine-cache-dir.js'
import {toEngineError} from '../errors/engine-error.js'
import type {DoctorCheck} from './doctor-check.js'

const fix = () =>
  `\`engine doctor --fix\` (downloads chrome-headless-shell ${PINNED_BROWSER.buildId} into ${browserCacheDir()}; a mirror: ENGINE_BROWSER_MIRROR), ` +
  `or ${SYSTEM_PACKAGE_FIX}, or --browser-path / ENGINE_BROWSER_PATH`

/** The browser a render would use, launched once to confirm its version and begin-frame support. */
export async function checkBrowser(options: {browserPath?: string} = {}): Promise<DoctorCheck> {
  try {
    const choice = await resolveBrowser({browserPath: options.browserPath})
    const probe = await probeBrowser(choice.executablePath)
    const info = {path: choice.executablePath, source: choice.source, version: probe.version, beginFrame: probe.beginFrame}
    return {
      name: 'browser',
      status: probe.beginFrame ? 'ok' : 'warning',
      required: true,
      summary: `${choice.executablePath} (${choice.source}), ${probe.version}, ${probe.beginFrame ? 'begin-frame capture' : 'no begin-frame support: slower screenshot capture'}`,
      fix: probe.beginFrame ? undefined : `for faster, damage-aware capture: ${SYSTEM_PACKAGE_FIX}`,
      info,
    }
  } catch (error) {
    return {name: 'browser', status: 'missing', required: true, summary: toEngineError(error).message, fix: fix(), info: {}}
  }
}
