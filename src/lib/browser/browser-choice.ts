/** Where the browser executable came from, in the order `resolveBrowser` looks. */
export type BrowserSource = 'flag' | 'config' | 'env' | 'pinned' | 'system-headless-shell' | 'function-chromium' | 'sparticuz' | 'system-chrome'

/** The browser a render captures with; plain data so it can be logged and passed to workers. */
export interface BrowserChoice {
  executablePath: string
  source: BrowserSource
  /**
   * The executable is an old-headless shell that supports `HeadlessExperimental.beginFrame`
   * (fast capture with damage tracking); otherwise frames are taken with `Page.captureScreenshot`.
   */
  beginFrame: boolean
  /** Let the browser use the host GPU (`--browser-gpu`); off means `--disable-gpu`. */
  gpu: boolean
  /** Browser version, when it was probed (e.g. "HeadlessChrome/156.0.8078.79"). */
  version?: string
  /**
   * A serverless Chromium's own launch arguments (single process, no zygote, in-process GPU,
   * SwiftShader GL), already stripped of the ones that weaken the page's security.
   */
  serverlessArgs?: readonly string[]
  /**
   * Device pixels per CSS pixel (`--scale`). Begin-frame screenshots follow the process's scale
   * factor, not the page's emulated one, so it is a launch setting; processes are pooled by it.
   */
  deviceScaleFactor?: number
  /** Set under a render profile (`--profile`): its flags and the environment (fonts) the browser runs with. */
  profile?: BrowserProfileLaunch
}

export interface BrowserProfileLaunch {
  name: string
  args: readonly string[]
  env: Readonly<Record<string, string>>
}
