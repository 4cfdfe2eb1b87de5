import {resolveFfmpeg, type FfmpegInfo} from 'html-video-engine/internal/lib/encode/resolve-ffmpeg.js'

/**
 * The ffmpeg the function's actions encode with: on Lambda the bundle's (named by the environment
 * at cold start); in the local stack without a bundle, the pinned build in engine's cache before
 * PATH, which is what the default bundle carries and `--profile deterministic` encodes with.
 */
export function functionFfmpeg(): Promise<FfmpegInfo> {
  return resolveFfmpeg({preferPinned: true})
}
