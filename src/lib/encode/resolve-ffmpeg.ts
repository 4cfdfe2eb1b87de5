import {execFile} from 'node:child_process'
import {delimiter, dirname, join} from 'node:path'
import {z} from 'zod'
import {engineCacheDir} from '../browser/engine-cache-dir.js'
import {EngineError} from '../errors/engine-error.js'
import {stampedProbe} from '../files/stamped-probe-cache.js'
import {findPinnedFfmpeg, hostFfmpegArch, PINNED_FFMPEG} from './pinned-ffmpeg.js'
import {findStaticFfmpeg, isExecutable, staticFfmpegBuild} from './static-ffmpeg.js'

/** Where the ffmpeg binary was found, so that `engine doctor` can say why this one was used. */
export type FfmpegSource = 'option' | 'env' | 'path' | 'ffmpeg-static' | 'pinned' | 'cache' | 'npm-package'

export interface FfmpegInfo {
  ffmpegPath: string
  ffprobePath: string
  /** First line of `ffmpeg -version` after "ffmpeg version", e.g. "5.1.9-0+deb12u1". */
  version: string
  source: FfmpegSource
}

export interface ResolveFfmpegOptions {
  ffmpegPath?: string
  ffprobePath?: string
  /**
   * The pinned build in engine's cache (`engine ffmpeg install`) before PATH: what the
   * deterministic profile encodes with. Otherwise it comes after PATH, before the npm builds.
   */
  preferPinned?: boolean
  /** Defaults to process.env; tests pass their own. */
  env?: NodeJS.ProcessEnv
}

export const FFMPEG_PATH_ENV = 'ENGINE_FFMPEG_PATH'
export const FFPROBE_PATH_ENV = 'ENGINE_FFPROBE_PATH'
const INSTALL_FIX =
  'install it (Debian/Ubuntu: `apt-get install -y ffmpeg`, macOS: `brew install ffmpeg`, Windows: `winget install --id Gyan.FFmpeg`) ' +
  `or point ${FFMPEG_PATH_ENV} and ${FFPROBE_PATH_ENV} at the binaries`
/** The download is offered only where npm carries a static build for this platform. */
const DOWNLOAD_FIX = staticFfmpegBuild()
  ? '; or let engine download a static build: `engine doctor --fix`, or render with --yes (ENGINE_AUTO_INSTALL=1)'
  : ''
const PINNED_FIX = hostFfmpegArch() ? `; or \`engine ffmpeg install\` (the static ffmpeg ${PINNED_FFMPEG.x86_64.version} the serverless function carries)` : ''

const resolved = new Map<string, Promise<FfmpegInfo>>()

/**
 * Finds ffmpeg and ffprobe: an explicit option, then ENGINE_FFMPEG_PATH / ENGINE_FFPROBE_PATH,
 * then PATH, then the optional `ffmpeg-static` package, then the pinned build in the cache
 * (first of all with `preferPinned`), then the npm static build of this platform
 * (downloaded into the cache, or installed as engine's optional npm dependency). A path the user named explicitly must work:
 * it is never silently replaced by another binary.
 */
export function resolveFfmpeg(options: ResolveFfmpegOptions = {}): Promise<FfmpegInfo> {
  const env = options.env ?? process.env
  const key = JSON.stringify([options.ffmpegPath, options.ffprobePath, options.preferPinned, env[FFMPEG_PATH_ENV], env[FFPROBE_PATH_ENV], env.PATH, env.ENGINE_CACHE_DIR])
  let result = resolved.get(key)
  if (!result) {
    result = locate(options, env)
    resolved.set(key, result)
    result.catch(() => resolved.delete(key))
  }
  return result
}

async function locate(options: ResolveFfmpegOptions, env: NodeJS.ProcessEnv): Promise<FfmpegInfo> {
  const ffmpeg = await locateFfmpeg(options, env)
  const version = await cachedVersion(ffmpeg, env)
  const ffprobePath = ffmpeg.ffprobePath ?? (await locateFfprobe(options, env, ffmpeg.path))
  return {ffmpegPath: ffmpeg.path, ffprobePath, version, source: ffmpeg.source}
}

interface Located {
  path: string
  source: FfmpegSource
  describe: string
  /** The ffprobe that belongs to this build, when it is known with it. */
  ffprobePath?: string
}

async function locateFfmpeg(options: ResolveFfmpegOptions, env: NodeJS.ProcessEnv): Promise<Located> {
  if (options.ffmpegPath) return {path: options.ffmpegPath, source: 'option', describe: `ffmpeg path "${options.ffmpegPath}"`}
  const fromEnv = env[FFMPEG_PATH_ENV]
  if (fromEnv) return {path: fromEnv, source: 'env', describe: `${FFMPEG_PATH_ENV}="${fromEnv}"`}
  const pinned = () => findHostPinnedFfmpeg(env)
  const first = options.preferPinned ? await pinned() : undefined
  if (first) return first
  const onPath = await findOnPath('ffmpeg', env)
  if (onPath) return {path: onPath, source: 'path', describe: `ffmpeg on PATH (${onPath})`}
  const bundled = await importFfmpegStatic()
  if (bundled) return {path: bundled, source: 'ffmpeg-static', describe: `ffmpeg-static (${bundled})`}
  const cachedPinned = options.preferPinned ? undefined : await pinned()
  if (cachedPinned) return cachedPinned
  const staticBuild = await findStaticFfmpeg(env)
  if (staticBuild) {
    const describe = `the static ffmpeg ${staticBuild.source === 'cache' ? 'in the engine cache' : 'npm package'} (${staticBuild.ffmpegPath})`
    return {path: staticBuild.ffmpegPath, source: staticBuild.source, describe, ffprobePath: staticBuild.ffprobePath}
  }
  throw new EngineError('FFMPEG_NOT_FOUND', `ffmpeg was not found on PATH, nor a static build in the engine cache: ${INSTALL_FIX}${DOWNLOAD_FIX}${PINNED_FIX}`)
}

async function findHostPinnedFfmpeg(env: NodeJS.ProcessEnv): Promise<Located | undefined> {
  const arch = hostFfmpegArch()
  const found = arch ? await findPinnedFfmpeg(PINNED_FFMPEG[arch], env) : undefined
  return found && {path: found.ffmpegPath, source: 'pinned', describe: `the pinned ffmpeg ${found.record.version} in the engine cache (${found.ffmpegPath})`, ffprobePath: found.ffprobePath}
}

async function locateFfprobe(options: ResolveFfmpegOptions, env: NodeJS.ProcessEnv, ffmpegPath: string): Promise<string> {
  const explicit = options.ffprobePath ?? env[FFPROBE_PATH_ENV]
  if (explicit) {
    if (await isExecutable(explicit)) return explicit
    const name = options.ffprobePath ? 'ffprobe path' : FFPROBE_PATH_ENV
    throw new EngineError('FFMPEG_NOT_FOUND', `${name} "${explicit}" is not an executable file: fix the path or unset it`, {ffprobePath: explicit})
  }
  // An ffprobe next to the chosen ffmpeg belongs to the same build; prefer it over PATH.
  const sibling = join(dirname(ffmpegPath), executableName('ffprobe'))
  if (await isExecutable(sibling)) return sibling
  const onPath = await findOnPath('ffprobe', env)
  if (onPath) return onPath
  throw new EngineError('FFMPEG_NOT_FOUND', `ffprobe was not found next to ${ffmpegPath} nor on PATH: ${INSTALL_FIX}`)
}

/**
 * `-version` also proves the binary runs. A fresh process would otherwise start ffmpeg for it on
 * every render, most of it spent in the dynamic linker (Debian's build loads ~200 libraries).
 */
function cachedVersion(ffmpeg: Located, env: NodeJS.ProcessEnv): Promise<string> {
  const file = join(engineCacheDir(env), 'probes', 'ffmpeg-version.json')
  return stampedProbe({file, executablePath: ffmpeg.path, schema: z.string(), probe: () => readVersion(ffmpeg.path, ffmpeg.describe)})
}

function readVersion(ffmpegPath: string, describe: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(ffmpegPath, ['-hide_banner', '-version'], {timeout: 10_000}, (error, stdout) => {
      if (error) {
        reject(
          new EngineError('FFMPEG_NOT_FOUND', `${describe} does not run (${error.message.split('\n')[0]}): ${INSTALL_FIX}`, {
            ffmpegPath,
          }),
        )
        return
      }
      const match = /ffmpeg version (\S+)/.exec(stdout)
      resolve(match ? match[1] : 'unknown')
    })
  })
}

function executableName(name: string): string {
  return process.platform === 'win32' ? `${name}.exe` : name
}


async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, executableName(name))
    if (await isExecutable(candidate)) return candidate
  }
  return undefined
}

async function importFfmpegStatic(): Promise<string | undefined> {
  // A variable specifier keeps tsc from requiring the optional package at build time.
  const specifier = 'ffmpeg-static'
  try {
    const module = (await import(specifier)) as {default?: unknown}
    return typeof module.default === 'string' && (await isExecutable(module.default)) ? module.default : undefined
  } catch {
    return undefined
  }
}
