import {writeFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import type {Fps} from '../plan/fps.js'
import {muxedAudioArgs, type AssemblyAudio} from './audio-track.js'
import {BITEXACT_MUX} from './deterministic-args.js'
import type {SegmentRef} from './format-plugin.js'
import {ffmpegRate} from './frame-timing.js'
import {listBitstreamFilters} from './list-bitstream-filters.js'

/**
 * A concat demuxer list. Paths are absolute (the demuxer resolves relative ones against the list)
 * and single-quoted with a quote written as '\''. Each file's duration comes from its frame count,
 * not from the container, whose rounded durations (MP4 movie header in ms, Matroska in ms) would
 * add up to drift over many segments. The demuxer adds durations up in whole microseconds, so each
 * one is written as the difference of the exact start times rounded to the microsecond: every
 * file then starts within half a microsecond of its frame time, however many files precede it.
 */
export function concatList(segments: readonly SegmentRef[], fps: Fps): string {
  const startMicros = (frame: number) => Math.round((frame * fps.den * 1_000_000) / fps.num)
  return segments
    .map((segment) => {
      const micros = startMicros(segment.range.end) - startMicros(segment.range.start)
      return `file '${resolve(segment.path).replaceAll("'", "'\\''")}'\nduration ${(micros / 1_000_000).toFixed(6)}\n`
    })
    .join('')
}

/**
 * Snaps every timestamp to the nearest exact frame time. The concat demuxer offsets files in whole
 * microseconds, a rounding of up to half a microsecond per seam; snapping makes the joined stream's
 * timestamps identical to those of a single encode, however many segments there are.
 */
export function frameGridBitstreamFilter(fps: Fps): string {
  const rate = ffmpegRate(fps)
  const snap = (ts: string) => `round(${ts}*TB*${rate})/(${rate})/TB`
  return `setts=pts=${snap('PTS')}:dts=${snap('DTS')}`
}

/**
 * Input plus stream-copy arguments for the video of all segments, joined on the exact frame grid
 * and muxed bitexact, so the same segments always give the same file; with `audio`, the track is
 * encoded into the same file in the same pass, and with `subtitles` the captions as a subtitle track. An ffmpeg without `setts` (before 4.4) joins
 * without the snap: the list already starts every file within half a microsecond of its frame
 * time, which the muxer's rounding to the stream's time base (1/15360 s for MP4 at 30 fps, 1 ms
 * for WebM) absorbs.
 */
export async function copySegmentsArgs(
  segments: readonly SegmentRef[],
  fps: Fps,
  listPath: string,
  ffmpegPath: string,
  audio?: AssemblyAudio,
  subtitles?: AssemblySubtitles,
): Promise<string[]> {
  const [, filters] = await Promise.all([writeFile(listPath, concatList(segments, fps)), listBitstreamFilters(ffmpegPath)])
  const snap = filters.has('setts') ? ['-bsf:v', frameGridBitstreamFilter(fps)] : []
  const track = audio ? muxedAudioArgs(audio, 1) : {input: [], output: []}
  const subtitleInput = subtitles ? ['-i', subtitles.vttPath] : []
  const subtitleOutput = subtitles ? ['-map', `${audio ? 2 : 1}:s`, '-c:s', subtitles.codec, '-metadata:s:s:0', 'language=und'] : []
  return ['-f', 'concat', '-safe', '0', '-i', listPath, ...track.input, ...subtitleInput, '-map', '0:v', '-c:v', 'copy', ...snap, ...track.output, ...subtitleOutput, ...BITEXACT_MUX]
}

/** The captions as a WebVTT file and the codec the format carries them in (`--captions-track`). */
export interface AssemblySubtitles {
  vttPath: string
  codec: string
}
