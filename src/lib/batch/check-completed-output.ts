import {readdir, stat} from 'node:fs/promises'
import type {FormatPlugin} from '../encode/format-plugin.js'
import {probeFrameCount} from '../encode/probe-frame-count.js'
import {resolveFfmpeg} from '../encode/resolve-ffmpeg.js'
import type {ManifestRow} from './batch-manifest.js'

/**
 * Why the file of a row the manifest calls completed cannot be kept (`is gone`, `is empty`, `has
 * 12 frames, not 30`), or undefined when it is whole. Frames are counted with ffprobe (frame files
 * for a frame directory) against the row's recorded count, when it has one, so a file cut short by
 * a crash or overwritten by something else is rendered again by `--resume`.
 */
export async function completedOutputProblem(path: string, row: ManifestRow, format: FormatPlugin): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined)
  if (!info) return 'is gone'
  let frames: number
  if (format.worker === 'frame-files') {
    if (!info.isDirectory()) return 'is not a directory of frames'
    frames = (await readdir(path)).filter((name) => format.frameFilePattern.test(name)).length
    if (frames === 0) return 'is empty'
  } else {
    if (!info.isFile()) return 'is not a file'
    if (info.size === 0) return 'is empty'
    if (row.totalFrames === undefined) return undefined
    try {
      frames = await probeFrameCount((await resolveFfmpeg()).ffprobePath, path)
    } catch {
      return 'cannot be read as video'
    }
  }
  if (row.totalFrames !== undefined && frames !== row.totalFrames) return `has ${frames} frames, not ${row.totalFrames}`
  return undefined
}
