import {writeFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import type {Fps} from '../plan/fps.js'
import type {SegmentRef} from './format-plugin.js'
import {ffmpegRate} from './frame-timing.js'

/**
 * A concat demuxer list. Paths are absolute (the demuxer resolves relative ones against the list)
 * and single-quoted with a quote written as '\''. Each file's duration comes from its frame count,
 * not from the container, whose rounded durations (MP4 movie header in ms, Matroska in ms) would
 * add up to drift over many segments.
 */
export function concatList(segments: readonly SegmentRef[], fps: Fps): string {
  return segments
    .map((segment) => {
      const seconds = ((segment.range.end - segment.range.start) * fps.den) / fps.num
      return `file '${resolve(segment.path).replaceAll("'", "'\\''")}'\nduration ${seconds.toFixed(6)}\n`
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

/** Input plus stream-copy arguments for the video of all segments, joined on the exact frame grid. */
export async function copySegmentsArgs(segments: readonly SegmentRef[], fps: Fps, listPath: string): Promise<string[]> {
  await writeFile(listPath, concatList(segments, fps))
  return ['-f', 'concat', '-safe', '0', '-i', listPath, '-map', '0:v', '-c', 'copy', '-bsf:v', frameGridBitstreamFilter(fps)]
}
