import type {ResolvedRenderOptions} from '../plan/render-options.js'
import type {ProfileName} from '../plan/render-options.js'

/** The profile the container image is built for. */
export const CONTAINER_PROFILE: ProfileName = 'deterministic'

export interface InnerRenderInput {
  /** Paths as the container sees them. */
  composition: string
  options: ResolvedRenderOptions
  /** The single output, or the batch's output template. */
  output: string
  /** The batch file and how to read it (its name in the container may not say). */
  batch?: {path: string; format: string}
  variablesFile?: string
  resume?: boolean
  /** `--restart`: render every row again over an earlier batch's manifest. */
  restart?: boolean
}

/**
 * `engine render` arguments for the engine inside the container: the host's resolved options (config
 * file included, since the container reads no config), every path already mapped, machine-readable
 * events to relay, the image's profile, and no host GPU. Host-only choices (a browser path, hardware
 * encoding, a producer server) are left out; the caller refuses the ones that cannot be honoured.
 */
export function innerRenderArgs(input: InnerRenderInput): string[] {
  const {options} = input
  const args = [
    'render',
    input.composition,
    '--json',
    '--profile',
    CONTAINER_PROFILE,
    '--no-browser-gpu',
    '--output',
    input.output,
    '--format',
    options.format,
    '--quality',
    options.quality,
    '--gif-loop',
    String(options.gifLoop),
    '--video-frame-format',
    options.videoFrameFormat,
    '--workers',
    String(options.workers),
  ]
  // Without an option, the render inside takes the root's data-fps as one outside would.
  if (options.fps !== undefined) args.push('--fps', String(options.fps))
  if (options.pageErrors === 'warn') args.push('--page-errors', 'warn')
  if (options.crf !== undefined) args.push('--crf', String(options.crf))
  if (options.keyframeInterval !== undefined) args.push('--keyframe-interval', String(options.keyframeInterval))
  if (options.hlsSegmentSeconds !== undefined) args.push('--hls-segment-seconds', String(options.hlsSegmentSeconds))
  if (options.videoBitrate !== undefined) args.push('--video-bitrate', options.videoBitrate)
  if (options.strictVariables) args.push('--strict-variables')
  if (options.strictFonts) args.push('--strict-fonts')
  if (options.strict) args.push('--strict')
  if (options.network === false) args.push('--no-network')
  if (options.allowPrivateNetwork) args.push('--allow-private-network')
  if (options.cache === false) args.push('--no-cache')
  if (options.hdr) args.push('--hdr')
  if (options.sdr) args.push('--sdr')
  if (options.scale !== undefined) args.push('--scale', String(options.scale))
  if (options.frames !== undefined) args.push('--frames', String(options.frames))
  if (options.poster !== undefined) args.push('--poster', String(options.poster))
  if (options.posterFormat !== undefined) args.push('--poster-format', options.posterFormat)
  if (options.onOverflow !== undefined) args.push('--on-overflow', options.onOverflow)
  if (options.checkOnly) args.push('--check-only')
  if (input.variablesFile) args.push('--variables-file', input.variablesFile)
  if (input.batch) {
    args.push('--batch', input.batch.path, '--batch-format', input.batch.format, '--batch-concurrency', String(options.batchConcurrency))
    if (options.batchFailFast) args.push('--batch-fail-fast')
    if (input.resume) args.push('--resume')
    if (input.restart) args.push('--restart')
  }
  return args
}
