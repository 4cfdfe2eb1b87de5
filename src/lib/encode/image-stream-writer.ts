import {createWriteStream} from 'node:fs'
import {rm} from 'node:fs/promises'
import {finished} from 'node:stream/promises'
import {EngineError} from '../errors/engine-error.js'
import {isNoSpace, noSpaceError} from '../errors/no-space.js'
import type {SegmentEncoder} from './segment-encoder-contract.js'

/**
 * Appends captured images to one file unchanged: a valid image2pipe stream that assembly decodes
 * later. Costs no CPU in the worker, and nothing is lost to a re-encode.
 */
export function openImageStreamWriter(outputPath: string): SegmentEncoder {
  const stream = createWriteStream(outputPath)
  let failure: EngineError | undefined
  stream.on('error', (error) => {
    failure ??= isNoSpace(error) ? noSpaceError(outputPath, error) : new EngineError('ENCODE_FAILED', `cannot write ${outputPath}: ${error.message}`, {outputPath})
  })
  return {
    async write(image) {
      if (failure) throw failure
      await new Promise<void>((resolve) => stream.write(image, () => resolve()))
      if (failure) throw failure
    },
    async end() {
      stream.end()
      await finished(stream).catch(() => undefined)
      if (failure) throw failure
    },
    async abort() {
      stream.destroy()
      await finished(stream).catch(() => undefined)
      await rm(outputPath, {force: true})
    },
  }
}
