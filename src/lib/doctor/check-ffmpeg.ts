import {toEngineError} from '../errors/engine-error.js'
import {checkFormatEncoders} from '../encode/format-encoder-status.js'
import {findPinnedFfmpeg, hostFfmpegArch, PINNED_FFMPEG, PINNED_FFMPEG_VERSION, pinnedFfmpegDir} from '../encode/pinned-ffmpeg.js'
import {FFMPEG_PATH_ENV, resolveFfmpeg, type FfmpegInfo} from '../encode/resolve-ffmpeg.js'
import {staticFfmpegBuild, staticFfmpegDir} from '../encode/static-ffmpeg.js'
import {ffmpegInstallCommand} from '../setup/install-static-ffmpeg.js'
import type {DoctorCheck} from './doctor-check.js'

/**
 * The pinned static build where one exists for this machine (the npm build where it cannot be
 * downloaded), the npm build on other platforms npm covers, else the system package; a path
 * the user set is theirs to correct (nothing is downloaded in its place).
 */
function fix(): string {
  const build = staticFfmpegBuild()
  const manual = `${ffmpegInstallCommand()}, or set ENGINE_FFMPEG_PATH / ENGINE_FFPROBE_PATH`
  if (process.env[FFMPEG_PATH_ENV]) return `correct or unset ${FFMPEG_PATH_ENV}; or ${manual}`
  const arch = hostFfmpegArch()
  if (arch) {
    const pinned = PINNED_FFMPEG[arch]
    return `\`engine doctor --fix\` (downloads the static ffmpeg ${pinned.version} into ${pinnedFfmpegDir(pinned)}; a mirror: ENGINE_FFMPEG_MIRROR${build ? `; else ${build.ffmpeg.name}@${build.ffmpeg.version} from npm` : ''}), or ${manual}`
  }
  if (!build) return manual
  return `\`engine doctor --fix\` (downloads ${build.ffmpeg.name}@${build.ffmpeg.version} and ${build.ffprobe.name}@${build.ffprobe.version} from npm into ${staticFfmpegDir(build)}; a mirror: ENGINE_NPM_REGISTRY), or ${manual}`
}

/** ffmpeg with the encoders each output format needs, and the ffprobe beside it. */
export async function checkFfmpeg(): Promise<DoctorCheck[]> {
  let info
  try {
    info = await resolveFfmpeg()
  } catch (error) {
    const message = toEngineError(error).message
    return [
      {name: 'ffmpeg', status: 'missing', required: true, summary: message, fix: fix(), info: {}},
      {name: 'ffprobe', status: 'missing', required: true, summary: 'not checked: ffmpeg is missing', fix: fix(), info: {}},
    ]
  }
  const formats = await checkFormatEncoders(info.ffmpegPath)
  const pinned = await pinnedBuildStatus(info)
  const missing = formats.filter((format) => !format.available)
  const ffmpeg: DoctorCheck = {
    name: 'ffmpeg',
    status: missing.length === 0 ? 'ok' : 'warning',
    required: true,
    summary:
      `${info.ffmpegPath} ${info.version} (${info.source})` +
      (missing.length === 0
        ? `; encoders for ${formats.map((f) => f.format).join(', ')}`
        : `; cannot encode ${missing.map((f) => `${f.format} (needs ${f.missing.join(', ')})`).join(', ')}`) +
      `; ${pinned.summary}`,
    fix: missing.length === 0 ? undefined : `install an ffmpeg build with ${[...new Set(missing.flatMap((f) => f.missing))].join(', ')}`,
    info: {path: info.ffmpegPath, version: info.version, source: info.source, formats, functionBuild: pinned.info},
  }
  const ffprobe: DoctorCheck = {
    name: 'ffprobe',
    status: 'ok',
    required: true,
    summary: info.ffprobePath,
    info: {path: info.ffprobePath},
  }
  return [ffmpeg, ffprobe]
}

/**
 * Whether this is the serverless function's build, and where `--profile deterministic` finds it:
 * the one ffmpeg that makes local and distributed renders the same file.
 */
async function pinnedBuildStatus(info: FfmpegInfo): Promise<{summary: string; info: {version: string; used: boolean; installed: string | null}}> {
  const arch = hostFfmpegArch()
  const installed = arch ? await findPinnedFfmpeg(PINNED_FFMPEG[arch]) : undefined
  const used = info.source === 'pinned' || info.version === PINNED_FFMPEG_VERSION
  const summary = used
    ? "the serverless function's build"
    : installed
      ? `not the serverless function's build (${PINNED_FFMPEG_VERSION}, in the cache at ${installed.ffmpegPath}: --profile deterministic encodes with that one)`
      : `not the serverless function's build (${PINNED_FFMPEG_VERSION}); --profile deterministic renders are the function's file only with it: ${arch ? '`engine ffmpeg install`' : 'render with --docker'}`
  return {summary, info: {version: PINNED_FFMPEG_VERSION, used, installed: installed?.ffmpegPath ?? null}}
}
