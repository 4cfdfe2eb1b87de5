import type {BrowserChoice} from '../browser/browser-choice.js'
import {probeBrowser} from '../browser/probe-browser.js'
import {EngineError} from '../errors/engine-error.js'
import {prepareProfileFonts} from './prepare-profile-fonts.js'
import type {RenderProfile} from './render-profile.js'

export interface ProfileNotice {
  code: 'profile-browser-mismatch'
  message: string
}

export interface ProfileBrowser {
  browser: BrowserChoice
  notices: ProfileNotice[]
}

/**
 * The browser a render under `profile` captures with: the profile's build (or `browserPath`, whose
 * version is then checked), with the profile's flags, fonts and environment, begin-frame capture
 * and no GPU. A browser without begin-frame control or a font set that differs from the pinned
 * one cannot give the profile's pixels and is refused; another version of the browser renders with
 * a warning, since its output is repeatable on this machine but may differ from the container's.
 */
export async function resolveProfileBrowser(
  profile: RenderProfile,
  options: {browserPath?: string; browserPathSource?: 'flag' | 'config'; env?: NodeJS.ProcessEnv} = {},
): Promise<ProfileBrowser> {
  const env = options.env ?? process.env
  const executablePath = options.browserPath ?? profile.browser.executablePath
  const install = profile.browser.packages.find((pkg) => pkg.name === 'chromium-headless-shell')
  const fix = `install it (as root: \`apt-get install -y ${install?.name}=${install?.version}\`) or render in the container with --docker`
  const [probe, fontsConf] = await Promise.all([
    probeBrowser(executablePath, {env}).catch((error: unknown) => {
      throw new EngineError(
        'PROFILE_UNAVAILABLE',
        `--profile ${profile.name} captures with ${profile.browser.product} at ${executablePath}, which does not run here (${(error as Error).message.split('\n')[0]}); ${fix}`,
        {profile: profile.name, executablePath},
      )
    }),
    prepareProfileFonts(profile, env),
  ])
  if (!probe.beginFrame) {
    throw new EngineError(
      'PROFILE_UNAVAILABLE',
      `--profile ${profile.name} needs begin-frame capture, which ${executablePath} (${probe.version}) does not support; use the old-headless chromium-headless-shell: ${fix}`,
      {profile: profile.name, executablePath, version: probe.version},
    )
  }
  const notices: ProfileNotice[] = []
  if (probe.version !== profile.browser.product) {
    notices.push({
      code: 'profile-browser-mismatch',
      message: `--profile ${profile.name} pins ${profile.browser.product}, but ${executablePath} is ${probe.version}: renders repeat on this machine but may differ from the container's; ${fix}`,
    })
  }
  const browser: BrowserChoice = {
    executablePath,
    source: options.browserPath ? (options.browserPathSource ?? 'flag') : 'system-headless-shell',
    beginFrame: true,
    gpu: false,
    version: probe.version,
    profile: {name: profile.name, args: profile.browserArgs, env: {...profile.env, FONTCONFIG_FILE: fontsConf}},
  }
  return {browser, notices}
}
