import {readdir, stat} from 'node:fs/promises'
import type {FormatPlugin} from '../encode/format-plugin.js'
import {countOutputFrames} from '../encode/count-output-frames.js'
import {resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import {outputBytes} from '../render/output-path.js'
import type {RowRecord} from './batch-manifest.js'

/**
 * Why the output of a row the manifest calls completed cannot be kept (`is gone`, `is empty`, `has
 * 12 frames, not 30`), or undefined when it is whole. A file is compared with the size recorded
 * when it was made (one stat, whatever the batch's size; with its companions, a directory listing); a frame directory's frame files are
 * counted; a file of an older manifest without a size is probed with ffprobe. So a file cut short
 * by a crash or overwritten by something else is rendered again by `--resume`.
 */
export async function completedOutputProblem(path: string, row: RowRecord, format: FormatPlugin): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined)
  if (!info) return 'is gone'
  if (info.isFile()) {
    if (info.size === 0) return 'is empty'
    if (row.bytes !== undefined) {
      // With its companion files (an HLS playlist's segments), as the render counted it.
      const size = await outputBytes(path, format)
      return size === row.bytes ? undefined : `has ${size} bytes, not the ${row.bytes} it was written with`
    }
    if (format.worker === 'frame-files') return 'is not a directory of frames'
    if (row.totalFrames === undefined) return undefined
    let frames: number | undefined
    try {
      frames = await countOutputFrames(format, async () => (await resolveFfmpeg()).ffprobePath, path)
    } catch {
      return 'cannot be read as video'
    }
    return frames === undefined || frames === row.totalFrames ? undefined : `has ${frames} frames, not ${row.totalFrames}`
  }
  if (!info.isDirectory() || format.worker !== 'frame-files') return 'is not a file'
  const frames = (await readdir(path)).filter((name) => format.frameFilePattern.test(name)).length
  if (frames === 0) return 'is empty'
  return row.totalFrames === undefined || frames === row.totalFrames ? undefined : `has ${frames} frames, not ${row.totalFrames}`
}
