import {rename, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import type {FormatPlugin} from '../encode/format-plugin.js'
import {BITEXACT_AUDIO, BITEXACT_MUX} from '../encode/deterministic-args.js'
import {partialPath} from '../encode/partial-path.js'
import {runFfmpeg} from '../encode/run-ffmpeg.js'

export interface AttachAudioTrackOptions {
  format: FormatPlugin
  /** The assembled output: a video file, or the frame directory of a frame-files format. */
  outputPath: string
  /** The mixed track (see mixAudioTrack). */
  trackPath: string
  ffmpegPath: string
  signal?: AbortSignal
}

/** File name of the audio written next to a PNG sequence. */
export const AUDIO_SIDECAR_NAME = 'audio.aac'

const AAC = ['-c:a', 'aac', '-b:a', '192k']
/** Encoder delay of ffmpeg's AAC encoder: one frame. */
const AAC_PRIMING_SAMPLES = 1024
const OPUS = ['-c:a', 'libopus', '-b:a', '160k']

/**
 * Puts the mixed track into the output the way its format carries audio: AAC muxed into mp4/mov,
 * Opus into webm (the video is stream-copied), an `audio.aac` sidecar (ADTS) in a frame directory,
 * and nothing for formats without audio. The track is encoded straight into the container, whose
 * edit list / codec delay hides the encoder's priming, so sound starts where the mix put it. Muxed
 * bitexact, so the same video and track give the same file.
 */
export async function attachAudioTrack(options: AttachAudioTrackOptions): Promise<void> {
  const {format} = options
  const run = (args: string[]) => runFfmpeg(options.ffmpegPath, args, {what: `adding audio to ${options.outputPath}`, signal: options.signal})
  switch (format.audio) {
    case 'none':
      return
    case 'sidecar': {
      if (format.worker !== 'frame-files') {
        throw new EngineError('INTERNAL', `format ${format.name} asks for an audio sidecar but writes a single file`)
      }
      // Raw ADTS cannot say that the first 1024 decoded samples are encoder priming, so players
      // play them: drop as many samples from the front of the track, and sound lands on time.
      await run([
        '-i', options.trackPath,
        '-af', `atrim=start_sample=${AAC_PRIMING_SAMPLES},asetpts=PTS-STARTPTS`,
        ...AAC, ...BITEXACT_AUDIO, '-f', 'adts', join(options.outputPath, AUDIO_SIDECAR_NAME),
      ])
      return
    }
    case 'aac':
    case 'opus': {
      if (format.worker === 'frame-files') {
        throw new EngineError('INTERNAL', `format ${format.name} writes a frame directory but asks for muxed ${format.audio} audio`)
      }
      const partial = partialPath(options.outputPath, format.extension)
      const container = format.audio === 'aac' ? ['-movflags', '+faststart'] : []
      try {
        await run([
          '-i', options.outputPath, '-i', options.trackPath,
          '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-map_metadata', '0',
          ...(format.audio === 'aac' ? AAC : OPUS), ...BITEXACT_AUDIO, ...BITEXACT_MUX, ...container,
          partial,
        ])
        await rename(partial, options.outputPath)
      } catch (error) {
        await rm(partial, {force: true})
        throw error
      }
    }
  }
}
