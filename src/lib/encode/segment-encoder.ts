import {dirname} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import {openFfmpegSegmentEncoder} from './ffmpeg-segment-encoder.js'
import {getFormat} from './format-registry.js'
import {openFrameSequenceWriter} from './frame-sequence-writer.js'
import type {GpuEncoder} from './gpu/gpu-encoders.js'
import {openImageStreamWriter} from './image-stream-writer.js'
import type {SegmentEncoder} from './segment-encoder-contract.js'
import {makeDirectory} from '../files/make-directory.js'

export type {SegmentEncoder}

export interface OpenSegmentEncoderOptions {
  plan: RenderPlan
  range: FrameRange
  /** Segment file; for frame-file formats (png-sequence) the directory the frames go into. */
  outputPath: string
  ffmpeg: {ffmpegPath: string}
  /** Required when plan.encode.gpu is set: the backend selectGpuEncoder() chose for this render. */
  gpuEncoder?: GpuEncoder
  /** Encoder threads for this worker's ffmpeg; ffmpeg picks when unset. */
  threads?: number
  /** Bytes of images allowed to wait in front of ffmpeg before write() blocks (default 8 MiB). */
  maxQueuedBytes?: number
}

/**
 * Opens the encoder for one worker's frame range. What it makes depends on the format's worker
 * output: an ffmpeg segment, the raw image stream (GIF) or frame files (png-sequence).
 */
export async function openSegmentEncoder(options: OpenSegmentEncoderOptions): Promise<SegmentEncoder> {
  const plugin = getFormat(options.plan.format)
  const {range} = options
  if (!(Number.isInteger(range.start) && Number.isInteger(range.end) && range.start >= 0 && range.end > range.start)) {
    throw new EngineError('INTERNAL', `frame range ${range.start}-${range.end} is empty or invalid`, {range})
  }
  if (plugin.worker === 'frame-files') {
    return countFrames(range, options.outputPath, await openFrameSequenceWriter({plugin, range, directory: options.outputPath}))
  }
  await makeDirectory(dirname(options.outputPath))
  if (plugin.worker === 'image-stream') {
    return countFrames(range, options.outputPath, openImageStreamWriter(options.outputPath))
  }
  const args = plugin.segmentArgs({plan: options.plan, range, gpuEncoder: options.gpuEncoder})
  return countFrames(range, options.outputPath, openFfmpegSegmentEncoder({...options, args}))
}

/** Enforces the contract every worker output shares: one image per frame, nothing after end/abort. */
function countFrames(range: FrameRange, outputPath: string, inner: SegmentEncoder): SegmentEncoder {
  const expected = range.end - range.start
  let written = 0
  let state: 'open' | 'ended' | 'aborted' = 'open'
  const closed = () =>
    state === 'aborted'
      ? new EngineError('CANCELLED', `segment ${outputPath} was aborted`)
      : new EngineError('INTERNAL', `segment ${outputPath} is already finished`)
  return {
    async write(image) {
      if (state !== 'open') throw closed()
      if (written === expected) {
        throw new EngineError('INTERNAL', `segment ${outputPath} covers frames ${range.start}-${range.end - 1}: got more than ${expected} images`)
      }
      written += 1
      await inner.write(image)
    },
    async end() {
      if (state !== 'open') throw closed()
      state = 'ended'
      if (written !== expected) {
        await inner.abort()
        throw new EngineError(
          'INTERNAL',
          `segment ${outputPath} covers frames ${range.start}-${range.end - 1} (${expected}) but received ${written} images`,
          {range, written},
        )
      }
      await inner.end()
    },
    async abort() {
      if (state === 'aborted') return
      state = 'aborted'
      await inner.abort()
    },
  }
}
