import {access, constants} from 'node:fs/promises'
import type {Browser} from '../vendor/puppeteer.js'
import {EngineError} from '../errors/engine-error.js'
import {browserCacheDir} from './engine-cache-dir.js'
import {loadPuppeteer} from './launch-browser.js'

/**
 * The chrome-headless-shell build `engine browser install` downloads. One fixed build makes
 * output the same on every machine that uses it; it matches puppeteer-core's own pin.
 */
export const PINNED_BROWSER = {browser: 'chrome-headless-shell' as Browser.CHROMEHEADLESSSHELL, buildId: '156.0.8078.47'} as const

export const SYSTEM_PACKAGE_FIX = 'apt-get install -y chromium-headless-shell'

export interface InstalledBrowser {
  executablePath: string
  buildId: string
  cacheDir: string
}

/** Path of the pinned build in the cache, when it is installed there. */
export async function findPinnedBrowser(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const {computeExecutablePath, detectBrowserPlatform} = await loadPuppeteer()
  const platform = detectBrowserPlatform()
  if (!platform) return undefined
  const executablePath = computeExecutablePath({...PINNED_BROWSER, platform, cacheDir: browserCacheDir(env)})
  try {
    await access(executablePath, constants.X_OK)
    return executablePath
  } catch {
    return undefined
  }
}

/**
 * Downloads the pinned chrome-headless-shell into the cache (a no-op when it is there already).
 * Without internet it fails fast with the offline alternatives.
 */
export async function installPinnedBrowser(
  options: {
    env?: NodeJS.ProcessEnv
    onProgress?: (downloadedBytes: number, totalBytes: number) => void
    /** A mirror of the Chrome for Testing downloads (default: Google's storage; see downloadMirrors). */
    baseUrl?: string
  } = {},
): Promise<InstalledBrowser> {
  const cacheDir = browserCacheDir(options.env)
  const {detectBrowserPlatform, install} = await loadPuppeteer()
  const platform = detectBrowserPlatform()
  if (!platform) {
    throw new EngineError(
      'BROWSER_NOT_FOUND',
      `chrome-headless-shell is not built for ${process.platform}/${process.arch}; install a Chromium yourself and pass --browser-path <path>`,
    )
  }
  try {
    const installed = await install({...PINNED_BROWSER, platform, cacheDir, downloadProgressCallback: options.onProgress, baseUrl: options.baseUrl})
    return {executablePath: installed.executablePath, buildId: PINNED_BROWSER.buildId, cacheDir}
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/\s+/g, ' ').trim() : String(error)
    throw new EngineError(
      'BROWSER_FAILED',
      `could not download chrome-headless-shell ${PINNED_BROWSER.buildId} into ${cacheDir} (${reason}). ` +
        `Check the internet connection (or the mirror in ENGINE_BROWSER_MIRROR) and try again, or install a system browser instead (${SYSTEM_PACKAGE_FIX}), or pass --browser-path <path>.`,
      {buildId: PINNED_BROWSER.buildId, cacheDir},
      {cause: error},
    )
  }
}
