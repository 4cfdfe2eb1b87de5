import {toEngineError} from '../errors/engine-error.js'
import {checkFormatEncoders} from '../encode/format-encoder-status.js'
import {FFMPEG_PATH_ENV, resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import {staticFfmpegBuild, staticFfmpegDir} from '../encode/static-ffmpeg.js'
import {ffmpegInstallCommand} from '../setup/install-static-ffmpeg.js'
import type {DoctorCheck} from './doctor-check.js'

/**
 * The download where npm has a static build for this platform, else the system package; a path
 * the user set is theirs to correct (nothing is downloaded in its place).
 */
function fix(): string {
  const build = staticFfmpegBuild()
  const manual = `${ffmpegInstallCommand()}, or set ENGINE_FFMPEG_PATH / ENGINE_FFPROBE_PATH`
  if (process.env[FFMPEG_PATH_ENV]) return `correct or unset ${FFMPEG_PATH_ENV}; or ${manual}`
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
  const missing = formats.filter((format) => !format.available)
  const ffmpeg: DoctorCheck = {
    name: 'ffmpeg',
    status: missing.length === 0 ? 'ok' : 'warning',
    required: true,
    summary:
      `${info.ffmpegPath} ${info.version} (${info.source})` +
      (missing.length === 0
        ? `; encoders for ${formats.map((f) => f.format).join(', ')}`
        : `; cannot encode ${missing.map((f) => `${f.format} (needs ${f.missing.join(', ')})`).join(', ')}`),
    fix: missing.length === 0 ? undefined : `install an ffmpeg build with ${[...new Set(missing.flatMap((f) => f.missing))].join(', ')}`,
    info: {path: info.ffmpegPath, version: info.version, source: info.source, formats},
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
