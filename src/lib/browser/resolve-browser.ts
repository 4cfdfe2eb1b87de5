import {constants} from 'node:fs'
import {access, stat} from 'node:fs/promises'
import {delimiter, join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import type {BrowserChoice, BrowserSource} from './browser-choice.js'
import {browserPreference, BROWSER_PREFERENCE_ENV, type BrowserPreference} from './browser-preference.js'
import {browserCacheDir} from './engine-cache-dir.js'
import {FUNCTION_CHROMIUM, FUNCTION_CHROMIUM_ARGS, functionChromiumDir} from './function-chromium.js'
import {serverlessBrowserArgs} from './launch-browser.js'
import {findPinnedBrowser, PINNED_BROWSER, SYSTEM_PACKAGE_FIX} from './pinned-browser.js'
import {probeBrowser} from './probe-browser.js'

export const SYSTEM_HEADLESS_SHELL = '/usr/bin/chromium-headless-shell'
/** New-headless browsers: they render, but only through screenshots. */
const SYSTEM_CHROME_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome']
const SPARTICUZ_PACKAGE = '@sparticuz/chromium'

export interface ResolveBrowserOptions {
  /** Explicit executable (`--browser-path` or the config file); wins over everything else. */
  browserPath?: string
  /** Where `browserPath` came from, for messages and the render's start event. */
  browserPathSource?: 'flag' | 'config'
  /** `--browser-gpu`: let the browser use the host GPU. */
  browserGpu?: boolean
  env?: NodeJS.ProcessEnv
  /** Where the system package puts the headless shell (default /usr/bin/chromium-headless-shell). */
  systemHeadlessShell?: string
}

/**
 * Picks the browser to capture with, in this order: an explicit path (flag or config), then
 * `ENGINE_BROWSER_PATH`, the pinned chrome-headless-shell in engine's cache, the system
 * chromium-headless-shell, the function Chromium in engine's cache, and finally any
 * Chrome/Chromium on PATH (screenshot capture only); `ENGINE_BROWSER` changes the order or leaves
 * the system's browsers out (see BROWSER_ORDER).
 * Explicit paths are probed for begin-frame support. On Lambda (a task root is set) the bundle's
 * `@sparticuz/chromium` is the only choice: it is installed with engine for building the bundle,
 * but a Linux build unpacked to the temp directory is no browser for a host render.
 */
export async function resolveBrowser(options: ResolveBrowserOptions = {}): Promise<BrowserChoice> {
  const env = options.env ?? process.env
  const gpu = options.browserGpu ?? false
  const explicit = options.browserPath
    ? {path: options.browserPath, source: options.browserPathSource ?? 'flag', name: options.browserPathSource === 'config' ? 'browserPath (config)' : '--browser-path'}
    : env.ENGINE_BROWSER_PATH
      ? {path: env.ENGINE_BROWSER_PATH, source: 'env' as const, name: 'ENGINE_BROWSER_PATH'}
      : undefined
  if (explicit) {
    if (!(await isExecutableFile(explicit.path))) {
      throw new EngineError(
        'BROWSER_NOT_FOUND',
        `${explicit.name}: "${explicit.path}" is not an executable file; point it at a Chromium or chrome-headless-shell binary, or remove it to use ${SYSTEM_HEADLESS_SHELL}`,
        {field: explicit.name, value: explicit.path},
      )
    }
    const probe = await probeBrowser(explicit.path, {env})
    return {executablePath: explicit.path, source: explicit.source, beginFrame: probe.beginFrame, gpu, version: probe.version}
  }

  // On Lambda (and in the local stack's Lambda-like child) only the bundle's browser exists.
  if (env.LAMBDA_TASK_ROOT) {
    const serverless = await sparticuzChromium()
    if (!serverless) {
      throw new EngineError('BROWSER_NOT_FOUND', `${SPARTICUZ_PACKAGE} did not unpack a browser in this function: rebuild the bundle with \`engine lambda bundle\` and deploy it`, {
        taskRoot: env.LAMBDA_TASK_ROOT,
      })
    }
    // Probed once per cold start: a build without begin-frame still renders, through screenshots.
    const probe = await probeBrowser(serverless.executablePath, {env, serverlessArgs: serverless.args})
    return {executablePath: serverless.executablePath, source: 'sparticuz', beginFrame: probe.beginFrame, gpu, version: probe.version, serverlessArgs: serverless.args}
  }

  const preference = browserPreference(env)
  const systemShell = options.systemHeadlessShell ?? SYSTEM_HEADLESS_SHELL
  const candidates: Record<'pinned' | 'function' | 'shell' | 'chrome', () => Promise<BrowserChoice | undefined>> = {
    pinned: async () => ifFound(await findPinnedBrowser(env), (path) => choice(path, 'pinned', true, gpu)),
    function: async () => ifFound(await cachedFunctionChromium(env), (path) => ({...choice(path, 'function-chromium', true, gpu), version: FUNCTION_CHROMIUM.product, serverlessArgs: FUNCTION_CHROMIUM_ARGS})),
    shell: async () => ((await isExecutableFile(systemShell)) ? choice(systemShell, 'system-headless-shell', true, gpu) : undefined),
    chrome: async () => ifFound(await findOnPath(SYSTEM_CHROME_NAMES, env), (path) => choice(path, 'system-chrome', false, gpu)),
  }
  for (const name of BROWSER_ORDER[preference]) {
    const found = await candidates[name]()
    if (found) return found
  }

  const looked = preference === 'downloaded' ? [browserCacheDir(env)] : ['--browser-path', 'ENGINE_BROWSER_PATH', browserCacheDir(env), systemShell, ...SYSTEM_CHROME_NAMES]
  throw new EngineError(
    'BROWSER_NOT_FOUND',
    `no browser to capture with${preference === 'downloaded' ? ` (${BROWSER_PREFERENCE_ENV}=downloaded: engine's own downloads only)` : ''}. Fix one of: let engine download chrome-headless-shell ${PINNED_BROWSER.buildId} ` +
      `(else the function Chromium, ${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version} from the npm registry) into ${browserCacheDir(env)} ` +
      `(render with --yes or ENGINE_AUTO_INSTALL=1, or run \`engine doctor --fix\`); \`${SYSTEM_PACKAGE_FIX}\` (as root); ` +
      `or pass --browser-path <path> / set ENGINE_BROWSER_PATH to a Chromium executable`,
    {looked, preference},
  )
}

/**
 * The order each ENGINE_BROWSER setting looks in. Begin-frame builds come before a new-headless
 * Chrome (screenshots only); under `auto` the function Chromium, which `engine browser install
 * --function` or a registry-only machine's first render put in the cache, comes after the system
 * headless shell, so that installing it for `--profile deterministic` does not change what a plain
 * render captures with.
 */
const BROWSER_ORDER: Record<BrowserPreference, ReadonlyArray<'pinned' | 'function' | 'shell' | 'chrome'>> = {
  auto: ['pinned', 'shell', 'function', 'chrome'],
  system: ['shell', 'chrome', 'pinned', 'function'],
  downloaded: ['pinned', 'function'],
}

function ifFound<T>(path: string | undefined, make: (path: string) => T): T | undefined {
  return path === undefined ? undefined : make(path)
}

/** The function Chromium when it is unpacked in engine's cache (never unpacked here: that is a download's job). */
async function cachedFunctionChromium(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined
  const path = join(functionChromiumDir(env), 'chromium')
  return (await isExecutableFile(path)) ? path : undefined
}

function choice(executablePath: string, source: BrowserSource, beginFrame: boolean, gpu: boolean): BrowserChoice {
  return {executablePath, source, beginFrame, gpu}
}

export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

async function findOnPath(names: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const directories = (env.PATH ?? '').split(delimiter).filter(Boolean)
  for (const name of names) {
    for (const directory of directories) {
      const candidate = join(directory, name)
      if (await isExecutableFile(candidate)) return candidate
    }
  }
  return undefined
}

/**
 * `@sparticuz/chromium` is optional (the Lambda bundle carries it); its executable is unpacked to
 * the temp directory on first use, and its launch arguments come with it.
 */
async function sparticuzChromium(): Promise<{executablePath: string; args: string[]} | undefined> {
  try {
    const name = SPARTICUZ_PACKAGE
    const module = (await import(name)) as {default?: {executablePath?: () => Promise<string>; args?: string[]}}
    const path = await module.default?.executablePath?.()
    if (!path || !(await isExecutableFile(path))) return undefined
    return {executablePath: path, args: serverlessBrowserArgs(module.default?.args ?? [])}
  } catch {
    return undefined
  }
}
