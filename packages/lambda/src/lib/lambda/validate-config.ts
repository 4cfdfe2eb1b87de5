import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {getFormat} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {parseFps} from 'html-video-engine/internal/lib/plan/fps.js'
import {renderConfigSchema, type RenderConfig, type RenderInput} from './render-input.js'
import {assertOutputKey} from './reserved-keys.js'

/** Step Functions' cap on a standard workflow's whole serialized execution input. */
export const MAX_EXECUTION_INPUT_BYTES = 262144

const PREFIX = '[validateConfig]'

/**
 * Checks a render request before any cloud call: the config's fields, the formats a distributed
 * render can make, and the size of the serialized execution input. Returns the serialized input,
 * which is exactly what StartExecution is sent.
 */
export function validateConfig(input: RenderInput): string {
  checkConfig(input.config)
  checkOutputKey(input)
  const serialized = JSON.stringify(input)
  const bytes = Buffer.byteLength(serialized, 'utf8')
  if (bytes > MAX_EXECUTION_INPUT_BYTES) {
    throw new EngineError(
      'PAYLOAD_TOO_LARGE',
      `${PREFIX} config: the workflow execution input is ${bytes} bytes, over the limit of ${MAX_EXECUTION_INPUT_BYTES} bytes (256 KiB); ` +
        'pass media as URLs (or as files in the site) instead of inlining them in variables',
      {bytes, limit: MAX_EXECUTION_INPUT_BYTES},
    )
  }
  return serialized
}

/** The output key is a safe key outside the stack's own objects (see reserved-keys.ts); the function checks it again. */
export function checkOutputKey(input: Pick<RenderInput, 'outputKey' | 'renderId' | 'bucketName' | 'config'>): void {
  assertOutputKey(input.outputKey, 'outputKey', {renderId: input.renderId, otherBucket: outputsElsewhere(input)})
}

/** The output goes to a bucket other than the stack's, which holds none of its objects. */
export function outputsElsewhere(input: {bucketName: string; config: {outputBucket?: string}}): boolean {
  return input.config.outputBucket !== undefined && input.config.outputBucket !== input.bucketName
}

/** Field checks alone (no size): the shape, HDR, the format, the frame rate and the frame size. */
export function checkConfig(config: RenderConfig): void {
  const result = renderConfigSchema.safeParse(config)
  if (!result.success) {
    const problems = result.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.map((key) => `config.${key}`).join(', ')}: not a render setting (use fps, width, height, format, variables, quality, crf, videoBitrate, keyframeInterval, gifLoop, hlsSegmentSeconds, captionsTrack, captionsSidecar, frames, scale, poster, posterFormat, strictFonts, pageErrors, chunkSize, maxParallelChunks, targetChunkFrames, concurrencyPerChunk, timeoutSeconds, outputBucket, downloadName, deleteAfter, overwrite)`
        : `config.${issue.path.join('.')}: ${issue.message}`,
    )
    throw new EngineError('INVALID_CONFIG', `${PREFIX} ${problems.join('; ')}`, {issues: result.error.issues})
  }
  if (config.hdr) {
    throw new EngineError(
      'INVALID_CONFIG',
      `${PREFIX} config.hdr: true is not supported by distributed renders (HDR mp4 is rendered in-process only); drop hdr, or render locally with \`engine render --hdr\``,
      {field: 'hdr', value: true},
    )
  }
  const format = prefixed(() => getFormat(config.format ?? 'mp4'), 'config.format')
  if (config.fps !== undefined) prefixed(() => parseFps(config.fps!, 'config.fps'))
  const odd = (['width', 'height'] as const).filter((side) => format.evenDimensions && config[side] !== undefined && config[side] % 2 !== 0)
  if (odd.length > 0) {
    throw new EngineError(
      'INVALID_CONFIG',
      `${PREFIX} ${odd.map((side) => `config.${side}: ${config[side]}`).join(', ')}: ${format.name} needs an even width and height; use ${odd.map((side) => config[side]! + 1).join(' and ')}`,
      {format: format.name, width: config.width, height: config.height},
    )
  }
}

function prefixed<T>(check: () => T, rename?: string): T {
  try {
    return check()
  } catch (error) {
    if (!(error instanceof EngineError)) throw error
    const message = rename ? error.message.replace(/^--format/, rename) : error.message
    throw new EngineError('INVALID_CONFIG', `${PREFIX} ${message}`, error.details)
  }
}
