import {mkdir, readdir, rename, rm, stat} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {moveFile} from '../files/move-file.js'
import type {FrameFilesFormat, SegmentRef} from './format-plugin.js'
import {partialPath} from './partial-path.js'
import {makeDirectory} from '../files/make-directory.js'

export interface AssembleFrameDirectoryOptions {
  plugin: FrameFilesFormat
  /** Directories the workers wrote their frames into. */
  segments: readonly SegmentRef[]
  /** The output directory (created if absent). */
  outputPath: string
  expectedFrames: number
}

/**
 * Gathers every worker's frame files into the output directory. A new directory is filled under a
 * hidden name and renamed into place, so a failure leaves nothing behind. An existing directory
 * keeps its other files; frames are replaced, and frames left over from a longer earlier render
 * are deleted so the sequence is exactly this render's.
 */
export async function assembleFrameDirectory(options: AssembleFrameDirectoryOptions): Promise<void> {
  const {plugin, outputPath} = options
  const frames = await collectFrames(options)
  const existing = await stat(outputPath).catch(() => undefined)
  if (existing && !existing.isDirectory()) {
    throw new EngineError('INVALID_FLAG', `--output: ${outputPath} is a file, but ${plugin.name} writes a directory of frames; give a directory path`, {
      output: outputPath,
    })
  }
  if (existing) {
    await moveAll(frames, outputPath)
    const keep = new Set(frames.map((frame) => basename(frame)))
    const stale = (await readdir(outputPath)).filter((name) => plugin.frameFilePattern.test(name) && !keep.has(name))
    await Promise.all(stale.map((name) => rm(join(outputPath, name), {force: true})))
    return
  }
  await makeDirectory(dirname(outputPath))
  const partial = partialPath(outputPath)
  try {
    await mkdir(partial)
    await moveAll(frames, partial)
    await rename(partial, outputPath)
  } catch (error) {
    await rm(partial, {recursive: true, force: true})
    throw error
  }
}

async function collectFrames(options: AssembleFrameDirectoryOptions): Promise<string[]> {
  const frames: string[] = []
  for (const {path} of options.segments) {
    const names = await readdir(path).catch((error: Error) => {
      throw new EngineError('ENCODE_FAILED', `cannot read the frames in ${path}: ${error.message}`, {segment: path})
    })
    frames.push(...names.filter((name) => options.plugin.frameFilePattern.test(name)).map((name) => join(path, name)))
  }
  const unique = new Set(frames.map((frame) => basename(frame)))
  if (frames.length !== options.expectedFrames || unique.size !== frames.length) {
    throw new EngineError(
      'ENCODE_FAILED',
      `assembling ${options.outputPath}: the workers wrote ${unique.size} distinct frames (${frames.length} files), expected ${options.expectedFrames}`,
      {frames: frames.length, distinct: unique.size, expectedFrames: options.expectedFrames},
    )
  }
  return frames
}

async function moveAll(files: readonly string[], directory: string): Promise<void> {
  for (const file of files) await moveFile(file, join(directory, basename(file)))
}
