import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {z} from 'zod'
import {engineCacheDir} from '../browser/engine-cache-dir.js'
import {isExecutable} from './static-ffmpeg.js'

/** Lambda's names for the two architectures a pinned build exists for. */
export type PinnedFfmpegArch = 'x86_64' | 'arm64'

/** One architecture's archive of the pinned build. */
export interface PinnedFfmpegBuild {
  version: string
  arch: PinnedFfmpegArch
  /** The archive's file name: what a mirror serves (`<mirror>/<archive>`). */
  archive: string
  /** Where it is published, tried in this order (the release folder, then where it moves after the next release). */
  urls: readonly string[]
  /** sha256 of the archive, checked before anything in it is read. */
  sha256: string
  /** The two programs' paths inside the archive. */
  ffmpeg: string
  ffprobe: string
}

/** What the pinned build's `ffmpeg -version` reports: how a binary is recognised as this build without its hash. */
export const PINNED_FFMPEG_VERSION = '7.0.2-static'
const VERSION = '7.0.2'
const PUBLISHER = 'https://johnvansickle.com/ffmpeg'

function build(arch: PinnedFfmpegArch, debianArch: 'amd64' | 'arm64', sha256: string): PinnedFfmpegBuild {
  const folder = `ffmpeg-${VERSION}-${debianArch}-static`
  const archive = `${folder}.tar.xz`
  return {
    version: VERSION,
    arch,
    archive,
    urls: [`${PUBLISHER}/releases/${archive}`, `${PUBLISHER}/old-releases/${archive}`],
    sha256,
    ffmpeg: `${folder}/ffmpeg`,
    ffprobe: `${folder}/ffprobe`,
  }
}

/**
 * The one ffmpeg/ffprobe build that the serverless function carries and `--profile deterministic`
 * encodes with: John Van Sickle's static GPL release 7.0.2 (libx264, libx265, libvpx, libaom,
 * libdav1d, libopus, libmp3lame…), fully static, so it runs on Lambda's Amazon Linux and on any
 * Linux of its architecture. No npm package carries a build this recent in its tarball; it is
 * downloaded once into engine's cache and checked against these hashes.
 */
export const PINNED_FFMPEG: Readonly<Record<PinnedFfmpegArch, PinnedFfmpegBuild>> = {
  x86_64: build('x86_64', 'amd64', 'abda8d77ce8309141f83ab8edf0596834087c52467f6badf376a6a2a4c87cf67'),
  arm64: build('arm64', 'arm64', 'f4149bb2b0784e30e99bdda85471c9b5930d3402014e934a5098b41d0f7201b1'),
}

/** This machine's architecture in Lambda's names, when a pinned build exists for it. */
export function hostFfmpegArch(platform: string = process.platform, arch: string = process.arch): PinnedFfmpegArch | undefined {
  if (platform !== 'linux') return undefined
  return arch === 'x64' ? 'x86_64' : arch === 'arm64' ? 'arm64' : undefined
}

/** Where the unpacked build lives: `<cache>/ffmpeg/pinned-<version>-<arch>/` (ffmpeg, ffprobe and build.json). */
export function pinnedFfmpegDir(pinned: PinnedFfmpegBuild, env: NodeJS.ProcessEnv = process.env): string {
  return join(engineCacheDir(env), 'ffmpeg', `pinned-${pinned.version}-${pinned.arch}`)
}

/** Written beside the programs when they are placed: which archive they came from. */
export const PINNED_RECORD = 'build.json'
const recordSchema = z.object({version: z.string(), arch: z.string(), sha256: z.string(), url: z.string(), ffmpegSha256: z.string(), ffprobeSha256: z.string()})
export type PinnedFfmpegRecord = z.infer<typeof recordSchema>

export interface InstalledPinnedFfmpeg {
  ffmpegPath: string
  ffprobePath: string
  directory: string
  record: PinnedFfmpegRecord
}

/**
 * The pinned build in engine's cache, when it is there whole and came from the archive pinned
 * now (a repin makes an older unpack invisible rather than silently used).
 */
export async function findPinnedFfmpeg(pinned: PinnedFfmpegBuild, env: NodeJS.ProcessEnv = process.env): Promise<InstalledPinnedFfmpeg | undefined> {
  const directory = pinnedFfmpegDir(pinned, env)
  const ffmpegPath = join(directory, 'ffmpeg')
  const ffprobePath = join(directory, 'ffprobe')
  const record = await readFile(join(directory, PINNED_RECORD), 'utf8')
    .then((text) => recordSchema.parse(JSON.parse(text)))
    .catch(() => undefined)
  if (!record || record.sha256 !== pinned.sha256) return undefined
  if (!(await isExecutable(ffmpegPath)) || !(await isExecutable(ffprobePath))) return undefined
  return {ffmpegPath, ffprobePath, directory, record}
}
