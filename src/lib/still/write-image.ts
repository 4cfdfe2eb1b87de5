import {rename, rm, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {partialPath} from '../encode/partial-path.js'
import {runFfmpeg} from '../encode/run-ffmpeg.js'
import type {CaptureImageFormat} from '../plan/render-plan.js'
import {stillExtension, type StillFormat} from './still-settings.js'
import {makeDirectory} from '../files/make-directory.js'

export interface WriteImageOptions {
  /** The browser's image, as captured. */
  image: Buffer
  captured: CaptureImageFormat
  output: string
  format: StillFormat
  /** 0-100, for JPEG and WebP made here (a captured JPEG already has its quality). */
  quality: number
  ffmpegPath: string
  /** Scratch directory for the conversion's input. */
  workDir: string
  signal?: AbortSignal
}

/**
 * Writes a captured frame as `format`: the browser's bytes as they are when the formats match (so
 * the image is exactly the frame the video was encoded from), otherwise converted by ffmpeg (WebP
 * and PNG keep the alpha). The file appears whole or not at all.
 */
export async function writeImage(options: WriteImageOptions): Promise<void> {
  const {output, format} = options
  await makeDirectory(dirname(output))
  const partial = partialPath(output, stillExtension(format))
  try {
    if (format === options.captured) {
      await writeFile(partial, options.image)
    } else {
      const source = join(options.workDir, `poster-source.${options.captured === 'jpeg' ? 'jpg' : 'png'}`)
      await writeFile(source, options.image)
      await runFfmpeg(options.ffmpegPath, ['-i', source, ...encoderArgs(format, options.quality), '-frames:v', '1', partial], {what: `writing ${output}`, signal: options.signal})
    }
    await rename(partial, output)
  } catch (error) {
    await rm(partial, {force: true})
    throw error
  }
}

function encoderArgs(format: StillFormat, quality: number): string[] {
  switch (format) {
    case 'webp':
      return ['-c:v', 'libwebp', '-quality', String(quality), '-f', 'webp']
    case 'png':
      return ['-c:v', 'png', '-f', 'image2']
    case 'jpeg':
      // mjpeg's scale runs from 2 (best) to 31; full-range YUV as JPEG files use.
      return ['-c:v', 'mjpeg', '-q:v', String(Math.round(31 - (quality * 29) / 100)), '-pix_fmt', 'yuvj444p', '-f', 'image2']
  }
}
