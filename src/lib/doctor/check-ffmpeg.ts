import {toEngineError} from '../errors/engine-error.js'
import {checkFormatEncoders} from '../encode/format-encoder-status.js'
import {resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import type {DoctorCheck} from './doctor-check.js'

const FIX = 'apt-get install -y ffmpeg (macOS: brew install ffmpeg), or set ENGINE_FFMPEG_PATH / ENGINE_FFPROBE_PATH'

/** ffmpeg with the encoders each output format needs, and the ffprobe beside it. */
export async function checkFfmpeg(): Promise<DoctorCheck[]> {
  let info
  try {
    info = await resolveFfmpeg()
  } catch (error) {
    const message = toEngineError(error).message
    return [
      {name: 'ffmpeg', status: 'missing', required: true, summary: message, fix: FIX, info: {}},
      {name: 'ffprobe', status: 'missing', required: true, summary: 'not checked: ffmpeg is missing', fix: FIX, info: {}},
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
