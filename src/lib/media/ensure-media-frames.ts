import {EngineError} from '../errors/engine-error.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {framesExtractedHere} from './extract-video-frames.js'
import {prepareMedia, type PrepareMediaOptions} from './prepare-media.js'

/**
 * Makes the extracted video frames a finished plan's page shows present on this machine. A plan
 * finished here (or a warm Lambda container) finds them in the frame cache and does nothing; a
 * plan finished elsewhere runs the media stage again on this machine's copy of the project.
 * Extraction is keyed by content, so the result must be the plan's own media to the byte: anything
 * else (another source file, another ffmpeg) is an error rather than frames that differ per chunk.
 */
export async function ensureMediaFrames(options: Omit<PrepareMediaOptions, 'frameFormat' | 'plan'> & {plan: Readonly<RenderPlan>}): Promise<void> {
  const media = options.plan.runtime.media ?? []
  const present = await Promise.all(media.map((entry) => (entry.frames ? framesExtractedHere(entry.frames.directoryUrl) : true)))
  if (present.every(Boolean)) return
  // The media stage sees the page as planRender left it: with runtime media, the page would show
  // the (missing) extracted frames instead of listing its videos.
  const unfinished = {...options.plan, runtime: {...options.plan.runtime, media: undefined}}
  const prepared = await prepareMedia({...options, plan: unfinished, frameFormat: options.plan.videoFrameFormat ?? 'auto'})
  if (JSON.stringify(prepared.runtime) !== JSON.stringify(media)) {
    throw new EngineError('MEDIA_FAILED', 'the media sources here differ from those the render was planned with (another file, or another ffmpeg extracting their frames); render from the same project and engine everywhere', {
      planned: media,
      here: prepared.runtime,
    })
  }
}
