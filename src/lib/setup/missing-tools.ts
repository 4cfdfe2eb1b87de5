import {detectBrowserPlatform} from '@puppeteer/browsers'
import {browserCacheDir} from '../browser/engine-cache-dir.js'
import {installPinnedBrowser, PINNED_BROWSER} from '../browser/pinned-browser.js'
import {resolveBrowser} from '../browser/resolve-browser.js'
import {FFMPEG_PATH_ENV, resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import {staticFfmpegBuild, staticFfmpegDir} from '../encode/static-ffmpeg.js'
import {EngineError, isEngineError} from '../errors/engine-error.js'
import {downloadMirrors} from './download-mirrors.js'
import {installStaticFfmpeg} from './install-static-ffmpeg.js'

export type ToolProgress = (label: string, downloadedBytes: number, totalBytes: number) => void

/** A download that provides a missing tool, described before it runs (what, from where, into where). */
export interface ToolDownload {
  what: string
  from: string
  into: string
  run(onProgress: ToolProgress): Promise<void>
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
    if (problem) missing.push({tool: 'browser', problem, download: detectBrowserPlatform() ? browserDownload(mirrors.browser, env) : undefined})
  }
  if (options.ffmpeg && !env[FFMPEG_PATH_ENV]) {
    const problem = await failure(() => resolveFfmpeg({env}), 'FFMPEG_NOT_FOUND')
    if (problem) missing.push({tool: 'ffmpeg', problem, download: staticFfmpegBuild() ? ffmpegDownload(mirrors.npmRegistry, env) : undefined})
  }
  return missing
}

function browserDownload(baseUrl: string, env: NodeJS.ProcessEnv): ToolDownload {
  const label = `chrome-headless-shell ${PINNED_BROWSER.buildId}`
  return {
    what: `${label} (the pinned capture browser)`,
    from: baseUrl,
    into: browserCacheDir(env),
    run: async (onProgress) => {
      await installPinnedBrowser({env, baseUrl, onProgress: (done, total) => onProgress(label, done, total)})
    },
  }
}

function ffmpegDownload(registry: string, env: NodeJS.ProcessEnv): ToolDownload {
  const build = staticFfmpegBuild()!
  return {
    what: `static ffmpeg and ffprobe (npm ${build.ffmpeg.name}@${build.ffmpeg.version}, ${build.ffprobe.name}@${build.ffprobe.version})`,
    from: registry,
    into: staticFfmpegDir(build, env),
    run: async (onProgress) => {
      await installStaticFfmpeg({registry, env, onProgress: (file, done, total) => onProgress(file, done, total)})
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
