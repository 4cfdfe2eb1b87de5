import {mkdir, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import type {FrameRange} from '../plan/render-plan.js'
import type {FrameFilesFormat} from './format-plugin.js'
import type {SegmentEncoder} from './segment-encoder-contract.js'
import {isNoSpace, noSpaceError} from '../errors/no-space.js'

export interface FrameSequenceWriterOptions {
  plugin: FrameFilesFormat
  range: FrameRange
  /** Where this worker's frames go; created if absent. */
  directory: string
}

/** Writes each image as its own file, named by absolute frame index (frame_000042.png). */
export async function openFrameSequenceWriter(options: FrameSequenceWriterOptions): Promise<SegmentEncoder> {
  const {plugin, range, directory} = options
  const created = await mkdir(directory, {recursive: true})
  const written: string[] = []
  return {
    async write(image) {
      const path = join(directory, plugin.frameFileName(range.start + written.length))
      try {
        await writeFile(path, image)
      } catch (error) {
        if (isNoSpace(error)) throw noSpaceError(path, error)
        throw new EngineError('ENCODE_FAILED', `cannot write ${path}: ${(error as Error).message}`, {path})
      }
      written.push(path)
    },
    async end() {},
    async abort() {
      // Remove only what this writer made: an existing directory may be shared or the user's.
      if (created !== undefined) await rm(directory, {recursive: true, force: true})
      else await Promise.all(written.map((path) => rm(path, {force: true})))
    },
  }
}
