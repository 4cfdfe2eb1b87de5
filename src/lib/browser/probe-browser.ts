import {join} from 'node:path'
import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'
import {stampedProbe} from '../files/stamped-probe-cache.js'
import type {BrowserChoice} from './browser-choice.js'
import {engineCacheDir} from './engine-cache-dir.js'
import {closeBrowser, launchBrowser} from './launch-browser.js'

export interface BrowserProbe {
  version: string
  beginFrame: boolean
}

const PROBE_STEP_TIMEOUT_MS = 5000
const browserProbeSchema = z.object({version: z.string(), beginFrame: z.boolean()})

const inMemory = new Map<string, Promise<BrowserProbe>>()

/**
 * Launches `executablePath` once to learn its version and whether begin-frame capture works
 * there (only old-headless shells support it). Results are cached in memory and on disk, keyed by
 * the file's identity, so a render pays for the launch only after an upgrade.
 */
export function probeBrowser(executablePath: string, options: {env?: NodeJS.ProcessEnv; serverlessArgs?: readonly string[]} = {}): Promise<BrowserProbe> {
  const file = join(engineCacheDir(options.env ?? process.env), 'probes', 'browser.json')
  // Keyed by the cache file too: a caller that names another cache directory gets its probe recorded there.
  const key = `${file}\0${executablePath}`
  let probe = inMemory.get(key)
  if (!probe) {
    probe = stampedProbe({file, executablePath, schema: browserProbeSchema, probe: () => launchProbe(executablePath, options.serverlessArgs)})
    inMemory.set(key, probe)
    probe.catch(() => inMemory.delete(key))
  }
  return probe
}

async function launchProbe(executablePath: string, serverlessArgs: readonly string[] | undefined): Promise<BrowserProbe> {
  const choice: BrowserChoice = {executablePath, source: serverlessArgs ? 'sparticuz' : 'flag', beginFrame: true, gpu: false, serverlessArgs}
  const browser = await launchBrowser(choice, {protocolTimeoutMs: PROBE_STEP_TIMEOUT_MS})
  try {
    const version = await browser.version()
    return {version, beginFrame: await supportsBeginFrame(browser)}
  } catch (error) {
    throw new EngineError('BROWSER_FAILED', `${executablePath} started but did not answer: ${error instanceof Error ? error.message : String(error)}`, {
      executablePath,
    })
  } finally {
    await closeBrowser(browser)
  }
}

async function supportsBeginFrame(browser: Awaited<ReturnType<typeof launchBrowser>>): Promise<boolean> {
  const session = await browser.target().createCDPSession()
  try {
    const url = `about:blank#engine-probe-${process.pid}`
    await session.send('Target.createTarget', {url, width: 16, height: 16, enableBeginFrameControl: true})
    const target = await browser.waitForTarget((candidate) => candidate.url() === url, {timeout: PROBE_STEP_TIMEOUT_MS})
    const page = await target.createCDPSession()
    await page.send('HeadlessExperimental.enable')
    await page.send('HeadlessExperimental.beginFrame', {interval: 16, screenshot: {format: 'jpeg', quality: 10}})
    return true
  } catch {
    // New headless: the domain "wasn't found", or begin-frame control was not honoured.
    return false
  }
}
