import {mkdir, rename, rm} from 'node:fs/promises'
import {dirname} from 'node:path'
import {staticFfmpegBuild, staticFfmpegDir, type StaticFfmpegBuild} from '../encode/static-ffmpeg.js'
import {EngineError} from '../errors/engine-error.js'
import {downloadPackageFile, type DownloadProgress} from './npm-package-download.js'

/** The exact command that installs ffmpeg and ffprobe where npm carries no static build. */
export function ffmpegInstallCommand(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'brew install ffmpeg'
  if (platform === 'win32') return 'winget install --id Gyan.FFmpeg'
  if (platform === 'freebsd') return 'pkg install ffmpeg'
  return 'apt-get install -y ffmpeg (Fedora: dnf install ffmpeg; Alpine: apk add ffmpeg)'
}

/**
 * Downloads this platform's static ffmpeg and ffprobe from the npm registry into the engine
 * cache. Both land in a staging folder that is renamed into place at the end, so an interrupted
 * download never leaves a half build that a later render would pick up.
 */
export async function installStaticFfmpeg(options: {
  registry: string
  env?: NodeJS.ProcessEnv
  onProgress?: (file: 'ffmpeg' | 'ffprobe', downloadedBytes: number, totalBytes: number) => void
}): Promise<{directory: string; build: StaticFfmpegBuild}> {
  const build = staticFfmpegBuild()
  if (!build) {
    throw new EngineError(
      'FFMPEG_NOT_FOUND',
      `npm has no static ffmpeg build for ${process.platform}-${process.arch}: install it with \`${ffmpegInstallCommand()}\`, or point ENGINE_FFMPEG_PATH and ENGINE_FFPROBE_PATH at the binaries`,
    )
  }
  const directory = staticFfmpegDir(build, options.env)
  const staging = `${directory}.partial-${process.pid}`
  await mkdir(dirname(directory), {recursive: true})
  try {
    for (const file of ['ffmpeg', 'ffprobe'] as const) {
      const onProgress: DownloadProgress = (done, total) => options.onProgress?.(file, done, total)
      await downloadPackageFile(build[file], {registry: options.registry, directory: staging, onProgress, env: options.env})
    }
    await rm(directory, {recursive: true, force: true})
    await rename(staging, directory)
  } finally {
    await rm(staging, {recursive: true, force: true})
  }
  return {directory, build}
}
