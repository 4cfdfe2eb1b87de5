import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {EngineError} from '../errors/engine-error.js'
import {processFailure} from '../files/process-failure.js'
import {FileMemo} from './file-memo.js'

const exec = promisify(execFile)
const PROBE_TIMEOUT_MS = 30_000

export interface ProbedVideo {
  width: number
  height: number
  /** Average frame rate, frames per second. */
  fps: number
  codec: string
  /** The source carries alpha (an alpha pixel format, or VP8/VP9 with an alpha side stream). */
  alpha: boolean
  /** ffprobe's `color_transfer`, e.g. `smpte2084` (PQ), `arib-std-b67` (HLG), `bt709`. */
  colorTransfer?: string
}

export interface ProbedMedia {
  /** Length of the source in seconds. */
  durationSeconds: number
  video?: ProbedVideo
  hasAudio: boolean
  /** Channels of the first audio stream (the one the mix reads); absent without audio. */
  audioChannels?: number
}

interface FfprobeStream {
  codec_type?: string
  codec_name?: string
  width?: number
  height?: number
  avg_frame_rate?: string
  r_frame_rate?: string
  pix_fmt?: string
  color_transfer?: string
  duration?: string
  channels?: number
  tags?: Record<string, string>
  disposition?: {attached_pic?: number}
}

function rate(text: string | undefined): number {
  const [num, den] = (text ?? '0/1').split('/').map(Number)
  return den ? num / den : 0
}

/** ffprobe's report per source file, shared by the renders of this process (batch rows, server). */
const probes = new FileMemo<{streams?: FfprobeStream[]; format?: {duration?: string}}>()

/** Streams and length of a media file, via ffprobe. */
export async function probeMedia(ffprobePath: string, path: string, element: string): Promise<ProbedMedia> {
  let json: {streams?: FfprobeStream[]; format?: {duration?: string}}
  try {
    json = await probes.get(path, async () => {
      const {stdout} = await exec(ffprobePath, ['-v', 'error', '-of', 'json', '-show_streams', '-show_format', path], {
        timeout: PROBE_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      })
      return JSON.parse(stdout)
    })
  } catch (error) {
    const failure = processFailure(ffprobePath, error)
    if (failure.signal) {
      throw new EngineError('MEDIA_FAILED', `${element}: ffprobe crashed reading ${path}: ${failure.text}; point ENGINE_FFPROBE_PATH at another ffprobe (the system's, or \`engine ffmpeg install\`'s)`, {element, path, signal: failure.signal})
    }
    throw new EngineError('MEDIA_FAILED', `${element}: ${path} is not a media file ffprobe can read: ${failure.text}`, {element, path})
  }
  const streams = json.streams ?? []
  const videoStream = streams.find((stream) => stream.codec_type === 'video' && !stream.disposition?.attached_pic)
  const durationSeconds = Number(json.format?.duration ?? videoStream?.duration ?? NaN)
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) {
    throw new EngineError('MEDIA_FAILED', `${element}: ${path} has no known length (ffprobe reports no duration)`, {element, path})
  }
  const video: ProbedVideo | undefined = videoStream && {
    width: videoStream.width ?? 0,
    height: videoStream.height ?? 0,
    fps: rate(videoStream.avg_frame_rate) || rate(videoStream.r_frame_rate),
    codec: videoStream.codec_name ?? '',
    alpha: /^(yuva|rgba|bgra|argb|abgr|gbrap|ya|pal8)/.test(videoStream.pix_fmt ?? '') || (videoStream.tags?.alpha_mode ?? videoStream.tags?.ALPHA_MODE) === '1',
    colorTransfer: videoStream.color_transfer,
  }
  const audioStream = streams.find((stream) => stream.codec_type === 'audio')
  return {durationSeconds, video, hasAudio: audioStream !== undefined, audioChannels: audioStream?.channels}
}
