import {EngineError} from '../errors/engine-error.js'
import {runFfmpeg} from '../encode/run-ffmpeg.js'
import {AUDIO_SAMPLE_RATE, type MediaClip} from './media-clip.js'

export interface MixAudioTrackOptions {
  /** Clips with `audible` set are mixed; the others are ignored. */
  clips: readonly MediaClip[]
  /** Length of the video in seconds: the track is padded or cut to exactly this many samples. */
  durationSeconds: number
  /** A WAV file (32-bit float, stereo, 48 kHz) is written here. */
  outputPath: string
  ffmpegPath: string
  signal?: AbortSignal
}

/** atempo takes 0.5-2 per instance; a chain reaches the 0.1-5 range of `data-playback-rate`. */
export function atempoChain(rate: number): string[] {
  const steps: string[] = []
  let remaining = rate
  while (remaining > 2) {
    steps.push('atempo=2')
    remaining /= 2
  }
  while (remaining < 0.5) {
    steps.push('atempo=0.5')
    remaining /= 0.5
  }
  if (Math.abs(remaining - 1) > 1e-9) steps.push(`atempo=${remaining}`)
  return steps
}

/**
 * The time stretch of `data-playback-rate` (pitch kept, as a browser plays it). atempo's WSOLA
 * works on windows of 1/24 s of its input's declared rate and may place sound up to half a window
 * (divided by the rate) early; declaring half the rate gives it about 21 ms windows, the size
 * Chrome's own time stretch uses, and halves that error. The samples are not resampled.
 */
export function stretchFilters(rate: number): string[] {
  const chain = atempoChain(rate)
  if (chain.length === 0) return []
  return [`asetrate=${AUDIO_SAMPLE_RATE / 2}`, ...chain, `asetrate=${AUDIO_SAMPLE_RATE}`]
}

/**
 * A mono source goes into both channels at its own level, as browsers play it; ffmpeg's default
 * up-mix would put it 3 dB lower in each. Other layouts are left to aformat's standard down-mix.
 */
function stereoFilters(channels: number): string[] {
  return channels === 1 ? ['pan=stereo|c0=c0|c1=c0'] : []
}

/** Samples in `seconds` at 48 kHz, rounded to the nearest one. */
export function samplesIn(seconds: number): number {
  return Math.round(seconds * AUDIO_SAMPLE_RATE)
}

/**
 * The ffmpeg arguments of the mix: each audible clip in stereo, trimmed to its clip, sped to its rate, scaled
 * by its volume and delayed to its start (in whole samples), then summed without normalisation and
 * padded or cut to exactly the video's length. Null when no clip is audible inside the video.
 */
export function mixArgs(clips: readonly MediaClip[], durationSeconds: number, outputPath: string): string[] | null {
  const total = samplesIn(durationSeconds)
  const audible = clips.filter((clip) => clip.audible && clip.start < durationSeconds && clip.end > clip.start)
  if (audible.length === 0 || total === 0) return null
  const inputs: string[] = []
  const chains: string[] = []
  audible.forEach((clip, i) => {
    inputs.push('-i', clip.path)
    const visible = Math.max(0, Math.min(clip.end, durationSeconds) - Math.max(clip.start, 0))
    // A clip that starts before 0 (a negative data-start) begins that far into its source.
    const skipped = Math.max(0, -clip.start) * clip.rate
    const filters = [
      `aresample=${AUDIO_SAMPLE_RATE}`,
      ...stereoFilters(clip.channels),
      'aformat=sample_fmts=fltp:channel_layouts=stereo',
      `atrim=start=${clip.playbackStart + skipped}:duration=${visible * clip.rate}`,
      'asetpts=PTS-STARTPTS',
      ...stretchFilters(clip.rate),
      `volume=${clip.volume}`,
      `adelay=delays=${samplesIn(Math.max(0, clip.start))}S:all=1`,
    ]
    chains.push(`[${i}:a]${filters.join(',')}[a${i}]`)
  })
  const labels = audible.map((_, i) => `[a${i}]`).join('')
  const mix = `${labels}amix=inputs=${audible.length}:normalize=0:duration=longest:dropout_transition=0,apad=whole_len=${total},atrim=end_sample=${total}[mix]`
  return [...inputs, '-filter_complex', [...chains, mix].join(';'), '-map', '[mix]', '-c:a', 'pcm_f32le', '-ar', String(AUDIO_SAMPLE_RATE), '-f', 'wav', outputPath]
}

/**
 * Mixes every audible clip of a render into one 48 kHz track, once, offline. Returns false (and
 * writes nothing) when the composition has no sound. A distributed render calls this once in its
 * plan step and muxes the track into the joined video.
 */
export async function mixAudioTrack(options: MixAudioTrackOptions): Promise<boolean> {
  const args = mixArgs(options.clips, options.durationSeconds, options.outputPath)
  if (!args) return false
  try {
    await runFfmpeg(options.ffmpegPath, args, {what: 'mixing the audio track', signal: options.signal})
  } catch (error) {
    if (error instanceof EngineError && error.code === 'ENCODE_FAILED') {
      const sources = options.clips.filter((clip) => clip.audible).map((clip) => `${clip.element} (${clip.path})`)
      throw new EngineError('MEDIA_FAILED', `cannot mix the audio of ${sources.join(', ')}: ${error.message}`, error.details, {cause: error})
    }
    throw error
  }
  return true
}
