import {FFMPEG_PATH_ENV, resolveFfmpeg, type FfmpegInfo} from '../encode/resolve-ffmpeg.js'
import {hostFfmpegArch, PINNED_FFMPEG, PINNED_FFMPEG_VERSION} from '../encode/pinned-ffmpeg.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'

export interface FfmpegNotice {
  code: 'profile-ffmpeg-mismatch'
  message: string
}

/** How a machine gets the function's ffmpeg: the same words wherever the profile falls back. */
export const PINNED_FFMPEG_FIX =
  `get it with \`engine ffmpeg install\` (${PINNED_FFMPEG.x86_64.urls[0]} or its arm64 twin, checked against its sha256; a mirror: ENGINE_FFMPEG_MIRROR)`

/**
 * The ffmpeg a render encodes with. Under a profile it is the serverless function's build (the
 * pinned static ffmpeg in engine's cache) before any other, so a local render and a distributed
 * one are the same file; another one renders with a notice saying how to get it. Inside the
 * function the bundle's build is named by the environment and no notice is due.
 */
export async function resolveRenderFfmpeg(options: Pick<ResolvedRenderOptions, 'profile'>, env: NodeJS.ProcessEnv = process.env): Promise<{ffmpeg: FfmpegInfo; notices: FfmpegNotice[]}> {
  if (!options.profile) return {ffmpeg: await resolveFfmpeg(), notices: []}
  const ffmpeg = await resolveFfmpeg({preferPinned: true, env})
  if (env.LAMBDA_TASK_ROOT || ffmpeg.source === 'pinned' || ffmpeg.version === PINNED_FFMPEG_VERSION) return {ffmpeg, notices: []}
  const chosen = ffmpeg.source === 'env' ? ` (${FFMPEG_PATH_ENV})` : ''
  const fix = hostFfmpegArch() ? PINNED_FFMPEG_FIX : 'render in the container with --docker'
  return {
    ffmpeg,
    notices: [
      {
        code: 'profile-ffmpeg-mismatch',
        message:
          `--profile ${options.profile} encodes with the serverless function's ffmpeg (${PINNED_FFMPEG_VERSION}), but ${ffmpeg.ffmpegPath}${chosen} is ${ffmpeg.version}: ` +
          `renders repeat on this machine but are not the function's file; ${fix}`,
      },
    ],
  }
}
