import type {FormatPlugin} from './format-plugin.js'
import {isoVideoSampleCount} from './iso-sample-count.js'
import {probeFrameCount} from './probe-frame-count.js'

/** Outputs in the ISO base media file format, whose frames are counted from their sample table in this process. */
const ISO_EXTENSIONS = new Set(['.mp4', '.mov', '.m4v'])

/**
 * The frames in a format's output file as the format says they are counted: by ffprobe (the
 * default, for video; an MP4 or MOV from its sample table, with ffprobe only when that cannot be
 * read), by the format's own `countFrames`, or not at all (`countFrames: false`, for outputs that
 * are not a sequence of video frames, such as a contact sheet). Undefined when the format opts
 * out: the caller then skips its frame check.
 */
export async function countOutputFrames(format: FormatPlugin, ffprobePath: () => Promise<string>, file: string): Promise<number | undefined> {
  if (format.worker === 'frame-files' || format.countFrames === false) return undefined
  if (typeof format.countFrames === 'function') return format.countFrames(file)
  const counted = ISO_EXTENSIONS.has(format.extension ?? '') ? await isoVideoSampleCount(file) : undefined
  return counted ?? probeFrameCount(await ffprobePath(), file)
}
