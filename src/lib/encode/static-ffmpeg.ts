import {constants} from 'node:fs'
import {access} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {engineCacheDir} from '../browser/engine-cache-dir.js'

/** One npm package that carries a static binary inside its tarball (no install-time download). */
export interface StaticBinaryPackage {
  name: string
  version: string
  /** The executable's path inside the package. */
  file: string
}

export interface StaticFfmpegBuild {
  /** `<platform>-<arch>`, as Node names them. */
  platform: string
  ffmpeg: StaticBinaryPackage
  ffprobe: StaticBinaryPackage
}

/**
 * Static ffmpeg/ffprobe builds published on npm per platform (the @ffmpeg-installer and
 * @ffprobe-installer families), pinned so that every machine of a platform gets the same binary.
 * The same packages are what the Lambda bundle carries for linux-x64.
 */
const BUILDS: Record<string, {ffmpeg: string; ffprobe: string}> = {
  'linux-x64': {ffmpeg: '4.1.0', ffprobe: '5.2.0'},
  'linux-arm64': {ffmpeg: '4.1.4', ffprobe: '5.2.0'},
  'linux-arm': {ffmpeg: '4.1.3', ffprobe: '5.2.0'},
  'linux-ia32': {ffmpeg: '4.1.0', ffprobe: '5.2.0'},
  'darwin-x64': {ffmpeg: '4.1.0', ffprobe: '5.1.0'},
  'darwin-arm64': {ffmpeg: '4.1.5', ffprobe: '5.0.1'},
  'win32-x64': {ffmpeg: '4.1.0', ffprobe: '5.1.0'},
  'win32-ia32': {ffmpeg: '4.1.0', ffprobe: '5.1.0'},
}

/** The pinned static build for this platform, or undefined where npm has none. */
export function staticFfmpegBuild(platform: string = process.platform, arch: string = process.arch): StaticFfmpegBuild | undefined {
  const key = `${platform}-${arch}`
  const versions = BUILDS[key]
  if (!versions) return undefined
  const exe = platform === 'win32' ? '.exe' : ''
  return {
    platform: key,
    ffmpeg: {name: `@ffmpeg-installer/${key}`, version: versions.ffmpeg, file: `ffmpeg${exe}`},
    ffprobe: {name: `@ffprobe-installer/${key}`, version: versions.ffprobe, file: `ffprobe${exe}`},
  }
}

/** Where a downloaded static build lives: `<cache>/ffmpeg/<platform>-<arch>/` (ffmpeg and ffprobe side by side). */
export function staticFfmpegDir(build: StaticFfmpegBuild, env: NodeJS.ProcessEnv = process.env): string {
  return join(engineCacheDir(env), 'ffmpeg', `${build.platform}-${build.ffmpeg.version}-${build.ffprobe.version}`)
}

export interface StaticFfmpegPaths {
  ffmpegPath: string
  ffprobePath: string
  source: 'cache' | 'npm-package'
}

/**
 * A static build already on this machine: downloaded into the cache (`engine doctor --fix`, or a
 * first render), or installed beside engine as its optional npm dependencies.
 */
export async function findStaticFfmpeg(env: NodeJS.ProcessEnv = process.env): Promise<StaticFfmpegPaths | undefined> {
  const build = staticFfmpegBuild()
  if (!build) return undefined
  const dir = staticFfmpegDir(build, env)
  const cached = {ffmpegPath: join(dir, build.ffmpeg.file), ffprobePath: join(dir, build.ffprobe.file)}
  if ((await isExecutable(cached.ffmpegPath)) && (await isExecutable(cached.ffprobePath))) return {...cached, source: 'cache'}
  const ffmpegPath = packageFile(build.ffmpeg)
  const ffprobePath = packageFile(build.ffprobe)
  if (ffmpegPath && ffprobePath && (await isExecutable(ffmpegPath)) && (await isExecutable(ffprobePath))) return {ffmpegPath, ffprobePath, source: 'npm-package'}
  return undefined
}

const require = createRequire(import.meta.url)

function packageFile(pkg: StaticBinaryPackage): string | undefined {
  try {
    return join(dirname(require.resolve(`${pkg.name}/package.json`)), pkg.file)
  } catch {
    return undefined
  }
}

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
