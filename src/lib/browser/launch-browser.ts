import type {Browser} from 'puppeteer-core'
import {EngineError} from '../errors/engine-error.js'
import {abortReason} from './abort-reason.js'
import type {BrowserChoice} from './browser-choice.js'

/**
 * Frames drawn from the page's state and nothing else, whichever way they are captured: each frame
 * only once all of its tiles are rasterised (with its images decoded), and animations run on the
 * page's main thread, where a seek sets them, not ticked on by the compositor's clock. Measured
 * for the first: without it, frames taken with plain screenshots (browsers without begin-frame,
 * and then also `--scale` below 0.5) showed tiles still being drawn, and three renders of
 * examples/hello at `--scale 0.25` gave three different files. The others are begin-frame capture's, for the same
 * reason.
 */
const STABLE_DRAWING_FLAGS = [
  '--run-all-compositor-stages-before-draw',
  '--disable-threaded-animation',
  '--disable-threaded-scrolling',
  '--disable-checker-imaging',
  '--disable-image-animation-resync',
]

/** What makes `HeadlessExperimental.beginFrame` drive every frame (old-headless shell only). */
export const BEGIN_FRAME_FLAGS = ['--deterministic-mode', '--enable-begin-frame-control', '--disable-new-content-rendering-timeout', ...STABLE_DRAWING_FLAGS]

/**
 * The browser's half of the render-time sandbox. The engine answers every request a page makes
 * (DevTools Fetch interception); these flags make sure nothing else gets out: every connection
 * the interception does not see (WebSockets, a request of an uncovered target) goes to a proxy
 * that cannot exist, loopback included (`<-loopback>`), no host name resolves, WebRTC sends no
 * UDP, and pages of all origins share one renderer, so that cross-origin frames are intercepted
 * like the page itself. No flag opens file:// to the page.
 */
export const SANDBOX_FLAGS = [
  '--proxy-server=http://engine-no-network.invalid:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-site-isolation-trials',
  '--disable-features=IsolateOrigins,site-per-process',
]

/** Flags that would let a page past the sandbox, whoever adds them (a serverless build, a profile). */
const WEAKENS_CONFINEMENT = /^--(disable-web-security|allow-running-insecure-content|allow-file-access-from-files)(=|$)/

const LAUNCH_TIMEOUT_MS = 30_000

export function browserArgs(choice: BrowserChoice, isRoot = process.getuid?.() === 0): string[] {
  const serverless = choice.serverlessArgs ?? []
  const args = [
    ...serverless,
    ...(choice.beginFrame ? BEGIN_FRAME_FLAGS : STABLE_DRAWING_FLAGS),
    // A serverless build picks its software GL (SwiftShader) in its own arguments.
    ...(choice.gpu || serverless.length > 0 ? [] : ['--disable-gpu']),
    // Root cannot use the sandbox; neither can Lambda, where sparticuz's build runs.
    ...(isRoot || choice.source === 'sparticuz' ? ['--no-sandbox'] : []),
    `--force-device-scale-factor=${choice.deviceScaleFactor ?? 1}`,
    '--font-render-hinting=none',
    '--hide-scrollbars',
    '--mute-audio',
    ...SANDBOX_FLAGS,
    ...(choice.profile?.args ?? []),
  ]
  return mergeFeatureLists([...new Set(args)].filter((arg) => !WEAKENS_CONFINEMENT.test(arg)))
}


/** Chromium honours only the last `--disable-features=`: several lists become one. */
function mergeFeatureLists(args: string[]): string[] {
  const prefix = '--disable-features='
  const features = args.filter((arg) => arg.startsWith(prefix)).flatMap((arg) => arg.slice(prefix.length).split(','))
  if (features.length === 0) return args
  return [...args.filter((arg) => !arg.startsWith(prefix)), prefix + [...new Set(features)].filter(Boolean).join(',')]
}

/**
 * Serverless Chromium's arguments without those that would weaken the page's confinement
 * (`--disable-web-security`, insecure content, file access, its own proxy and resolver settings)
 * and without its headless mode, which puppeteer sets itself.
 */
export function serverlessBrowserArgs(args: readonly string[]): string[] {
  const replaced = /^--(proxy-server|proxy-bypass-list|host-resolver-rules|no-proxy-server|headless)(=|$)/
  return args.filter((arg) => !WEAKENS_CONFINEMENT.test(arg) && !replaced.test(arg))
}

/**
 * Under a profile the browser gets the profile's environment, and none of the host's font or locale
 * settings that the profile replaces; otherwise it inherits this process's environment.
 */
export function browserEnv(choice: BrowserChoice, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv | undefined {
  if (!choice.profile) return undefined
  const inherited = Object.entries(env).filter(([name]) => !/^(FONTCONFIG_|LC_|LANGUAGE$|LANG$|TZ$)/.test(name))
  return {...Object.fromEntries(inherited), ...choice.profile.env}
}

export interface LaunchOptions {
  signal?: AbortSignal
  /** Upper bound for any one DevTools call; callers use shorter, named timeouts on top. */
  protocolTimeoutMs?: number
}

/**
 * Starts one browser process. The caller owns it and must `closeBrowser` it; aborting `signal`
 * kills it at once. Puppeteer's own signal handlers stay off: cancellation belongs to the caller,
 * and puppeteer still kills the process if Node exits first.
 */
export async function launchBrowser(choice: BrowserChoice, options: LaunchOptions = {}): Promise<Browser> {
  if (options.signal?.aborted) throw abortReason(options.signal)
  const {default: puppeteer} = await loadPuppeteer()
  try {
    const browser = await puppeteer.launch({
      executablePath: choice.executablePath,
      headless: choice.beginFrame ? 'shell' : true,
      args: browserArgs(choice),
      env: browserEnv(choice),
      defaultViewport: null,
      pipe: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      waitForInitialPage: false,
      timeout: LAUNCH_TIMEOUT_MS,
      protocolTimeout: options.protocolTimeoutMs ?? 120_000,
      signal: options.signal,
    })
    // Puppeteer drops its pipe error listeners when the connection closes; a pipe that then
    // reports ECONNRESET (the process was killed) would crash Node with an uncaught error.
    for (const stream of browser.process()?.stdio ?? []) stream?.on('error', () => {})
    if (options.signal?.aborted) {
      killBrowser(browser)
      throw abortReason(options.signal)
    }
    return browser
  } catch (error) {
    if (options.signal?.aborted) throw abortReason(options.signal)
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    throw new EngineError(
      'BROWSER_FAILED',
      `could not start the browser ${choice.executablePath} (${choice.source}): ${reason}. Pass another browser with --browser-path or ENGINE_BROWSER_PATH`,
      {executablePath: choice.executablePath, source: choice.source},
      {cause: error},
    )
  }
}

/**
 * The puppeteer bundle, loaded when a browser is first needed: importing it costs every `engine`
 * start a tenth of its CPU, and most commands (config, lint, plugins, help) never start a browser.
 */
export function loadPuppeteer(): Promise<typeof import('../vendor/puppeteer.js')> {
  return import('../vendor/puppeteer.js')
}

/**
 * SIGKILL: for cancellation and for a browser that does not close in time. Puppeteer starts the
 * browser as the leader of its own process group, so the whole group goes at once; killing only
 * the main process leaves its renderer and GPU processes to die on their own seconds later.
 */
export function killBrowser(browser: Browser): void {
  const child = browser.process()
  if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  try {
    if (process.platform === 'win32') throw new Error('no process groups')
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    child.kill('SIGKILL')
  }
}

/** Closes gracefully, and kills the process when that takes longer than `timeoutMs`. Never throws. */
export async function closeBrowser(browser: Browser, timeoutMs = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      browser.close(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs)
      }),
    ])
  } catch {
    // Already gone or disconnected: the kill below makes sure.
  } finally {
    clearTimeout(timer)
    killBrowser(browser)
  }
}
