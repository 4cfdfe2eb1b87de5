import {copyFile, mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {PINNED_FFMPEG, pinnedFfmpegDir, type PinnedFfmpegArch} from '../../src/lib/encode/pinned-ffmpeg.js'

/**
 * The cache as `engine ffmpeg install` leaves it, with this machine's ffmpeg and ffprobe standing
 * in for the pinned build (which cannot be downloaded here): its record names the pinned archive's
 * hash, so engine takes it for the pinned build. Returns the folder.
 */
export async function seedPinnedFfmpeg(cacheDir: string, arch: PinnedFfmpegArch = 'x86_64'): Promise<string> {
  const pinned = PINNED_FFMPEG[arch]
  const directory = pinnedFfmpegDir(pinned, {ENGINE_CACHE_DIR: cacheDir})
  await mkdir(directory, {recursive: true})
  await copyFile('/usr/bin/ffmpeg', join(directory, 'ffmpeg'))
  await copyFile('/usr/bin/ffprobe', join(directory, 'ffprobe'))
  await writeFile(join(directory, 'build.json'), JSON.stringify({version: pinned.version, arch, sha256: pinned.sha256, url: pinned.urls[0], ffmpegSha256: '', ffprobeSha256: ''}))
  return directory
}
