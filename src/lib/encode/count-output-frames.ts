import type {FormatPlugin} from './format-plugin.js'
import {probeFrameCount} from './probe-frame-count.js'

/**
 * The frames in a format's output file as the format says they are counted: by ffprobe (the
 * default, for video), by the format's own `countFrames`, or not at all (`countFrames: false`, for
 * outputs that are not a sequence of video frames, such as a contact sheet). Undefined when the
 * format opts out: the caller then skips its frame check.
 */
export async function countOutputFrames(format: FormatPlugin, ffprobePath: () => Promise<string>, file: string): Promise<number | undefined> {
  if (format.worker === 'frame-files' || format.countFrames === false) return undefined
  if (typeof format.countFrames === 'function') return format.countFrames(file)
  return probeFrameCount(await ffprobePath(), file)
}
