import type {BrowserChoice} from '../browser/browser-choice.js'
import {findFunctionChromium, FUNCTION_CHROMIUM, FUNCTION_CHROMIUM_ARGS, type FunctionChromium} from '../browser/function-chromium.js'
import {probeBrowser} from '../browser/probe-browser.js'
import {resolveBrowser} from '../browser/resolve-browser.js'
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

/** How a machine gets the function's build: the same words wherever the profile falls back. */
export const FUNCTION_CHROMIUM_FIX =
  `get the serverless function's build (${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}) with \`engine browser install --function\` ` +
  `(from the npm registry, or ENGINE_NPM_REGISTRY), or \`npm install ${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}\` beside engine`

/**
 * The browser a render under `profile` captures with, with the profile's flags, fonts and
 * environment, begin-frame capture and no GPU. The build is, in this order: `browserPath` (its
 * version checked); inside the serverless function, the bundle's; the function's build unpacked in
 * engine's cache (or from the installed package), launched with the function's flags, so a local
 * render and a distributed one are the same file; else the profile's Debian build, with a notice
 * saying how to get the function's. A browser without begin-frame control or a font set that
 * differs from the pinned one is refused; another version renders with a notice.
 */
export async function resolveProfileBrowser(
  profile: RenderProfile,
  options: {
    browserPath?: string
    browserPathSource?: 'flag' | 'config'
    env?: NodeJS.ProcessEnv
    /** Where the function's build is looked for (default: engine's cache, then the installed package). */
    findFunctionBuild?: (env: NodeJS.ProcessEnv) => Promise<FunctionChromium | undefined>
  } = {},
): Promise<ProfileBrowser> {
  const env = options.env ?? process.env
  if (env.LAMBDA_TASK_ROOT && !options.browserPath) return functionBrowser(profile, env)
  const functionBuild = options.browserPath ? undefined : await (options.findFunctionBuild ?? findFunctionChromium)(env)
  const executablePath = options.browserPath ?? functionBuild?.executablePath ?? profile.browser.executablePath
  const serverlessArgs = functionBuild ? FUNCTION_CHROMIUM_ARGS : undefined
  const product = functionBuild ? FUNCTION_CHROMIUM.product : profile.browser.product
  const install = profile.browser.packages.find((pkg) => pkg.name === 'chromium-headless-shell')
  const fix = functionBuild
    ? `unpack it again (remove ${executablePath}) or render in the container with --docker`
    : `${FUNCTION_CHROMIUM_FIX}; or install the Debian build (as root: \`apt-get install -y ${install?.name}=${install?.version}\`) or render in the container with --docker`
  const [probe, fontsConf] = await Promise.all([
    probeBrowser(executablePath, {env, serverlessArgs}).catch((error: unknown) => {
      throw new EngineError(
        'PROFILE_UNAVAILABLE',
        `--profile ${profile.name} captures with ${product} at ${executablePath}, which does not run here (${(error as Error).message.split('\n')[0]}); ${fix}`,
        {profile: profile.name, executablePath},
      )
    }),
    prepareProfileFonts(profile, env),
  ])
  if (!probe.beginFrame) {
    throw new EngineError(
      'PROFILE_UNAVAILABLE',
      `--profile ${profile.name} needs begin-frame capture, which ${executablePath} (${probe.version}) does not support; use a headless shell: ${fix}`,
      {profile: profile.name, executablePath, version: probe.version},
    )
  }
  const notices: ProfileNotice[] = []
  if (probe.version !== FUNCTION_CHROMIUM.product) {
    notices.push({
      code: 'profile-browser-mismatch',
      message:
        `--profile ${profile.name} captures with the serverless function's build (${FUNCTION_CHROMIUM.product}), but ${executablePath} is ${probe.version}: ` +
        `renders repeat on this machine but are not the function's file; ${FUNCTION_CHROMIUM_FIX}`,
    })
  }
  const browser: BrowserChoice = {
    executablePath,
    source: options.browserPath ? (options.browserPathSource ?? 'flag') : functionBuild ? 'function-chromium' : 'system-headless-shell',
    beginFrame: true,
    gpu: false,
    version: probe.version,
    serverlessArgs,
    profile: {name: profile.name, args: profile.browserArgs, env: {...profile.env, FONTCONFIG_FILE: fontsConf}},
  }
  return {browser, notices}
}

/**
 * Inside the function: the bundle's build, its flags, and the profile's flags and environment over
 * the fonts the cold start copied to /tmp (FONTCONFIG_FILE, set by prepareLambdaEnvironment; the
 * bundle's builder checked the font files against the profile's hashes).
 */
async function functionBrowser(profile: RenderProfile, env: NodeJS.ProcessEnv): Promise<ProfileBrowser> {
  const serverless = await resolveBrowser({env, browserGpu: false})
  const fontsConf = env.FONTCONFIG_FILE
  if (!fontsConf) {
    throw new EngineError('PROFILE_UNAVAILABLE', `--profile ${profile.name}: the function has no fonts.conf (FONTCONFIG_FILE): rebuild the bundle with \`engine lambda bundle\``, {
      profile: profile.name,
    })
  }
  return {browser: {...serverless, profile: {name: profile.name, args: profile.browserArgs, env: {...profile.env, FONTCONFIG_FILE: fontsConf}}}, notices: []}
}
