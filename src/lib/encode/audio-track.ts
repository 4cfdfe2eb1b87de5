import {rename, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {BITEXACT_AUDIO, BITEXACT_MUX} from './deterministic-args.js'
import {partialPath} from './partial-path.js'
import {runFfmpeg} from './run-ffmpeg.js'

/** File name of the audio written next to a PNG sequence. */
const AUDIO_SIDECAR_NAME = 'audio.aac'

/** The render's mixed audio track and how a single-file output encodes it. */
export interface AssemblyAudio {
  kind: 'aac' | 'opus'
  trackPath: string
}

const AAC = ['-c:a', 'aac', '-b:a', '192k']
/** Encoder delay of ffmpeg's AAC encoder: one frame. */
const AAC_PRIMING_SAMPLES = 1024
const OPUS = ['-c:a', 'libopus', '-b:a', '160k']

/**
 * Arguments that add the mixed track (a WAV file, see mixAudioTrack) as input `inputIndex` and
 * encode it into the output beside the video of input 0: AAC for mp4/mov, Opus for webm. The track
 * is encoded straight into the container, whose edit list / codec delay hides the encoder's
 * priming, so sound starts where the mix put it; bitexact, so the same track gives the same bytes.
 */
export function muxedAudioArgs(audio: AssemblyAudio, inputIndex: number): {input: string[]; output: string[]} {
  return {
    input: ['-i', audio.trackPath],
    output: ['-map', `${inputIndex}:a`, ...(audio.kind === 'aac' ? AAC : OPUS), ...BITEXACT_AUDIO],
  }
}

/**
 * Writes the track as the `audio.aac` sidecar (ADTS) of a frame directory. Raw ADTS cannot say
 * that the first 1024 decoded samples are encoder priming, so players play them: as many samples
 * are dropped from the front of the track, and sound lands on time.
 */
export async function writeAudioSidecar(options: {directory: string; trackPath: string; ffmpegPath: string; signal?: AbortSignal}): Promise<void> {
  await runFfmpeg(
    options.ffmpegPath,
    [
      '-i', options.trackPath,
      '-af', `atrim=start_sample=${AAC_PRIMING_SAMPLES},asetpts=PTS-STARTPTS`,
      ...AAC, ...BITEXACT_AUDIO, '-f', 'adts', join(options.directory, AUDIO_SIDECAR_NAME),
    ],
    {what: `adding audio to ${options.directory}`, signal: options.signal},
  )
}

/**
 * Muxes the track into a finished video file by stream-copying its video into a new file: the
 * second pass for a third-party format whose assemble builds its own input instead of using
 * `copySegments()`, which carries the track in the assembly's one pass.
 */
export async function muxAudioIntoFile(options: {audio: AssemblyAudio; outputPath: string; extension: string; ffmpegPath: string; signal?: AbortSignal}): Promise<void> {
  const track = muxedAudioArgs(options.audio, 1)
  const partial = partialPath(options.outputPath, options.extension)
  try {
    await runFfmpeg(
      options.ffmpegPath,
      [
        '-i', options.outputPath, ...track.input,
        '-map', '0:v', '-c:v', 'copy', '-map_metadata', '0', ...track.output, ...BITEXACT_MUX,
        ...(options.audio.kind === 'aac' ? ['-movflags', '+faststart'] : []),
        partial,
      ],
      {what: `adding audio to ${options.outputPath}`, signal: options.signal},
    )
    await rename(partial, options.outputPath)
  } catch (error) {
    await rm(partial, {force: true})
    throw error
  }
}
