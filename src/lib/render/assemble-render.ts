import {assembleOutput} from '../encode/assemble-output.js'
import type {SegmentRef} from '../encode/format-plugin.js'
import {explainFullDisk} from '../errors/no-space.js'
import {clipsFrom} from '../media/clips-from.js'
import {mixAudioTrack} from '../media/mix-audio-track.js'
import {frameTime} from '../plan/fps.js'
import {renderedFrames} from '../plan/frame-range.js'
import type {RenderPlan} from '../plan/render-plan.js'
import type {FinishedPlan} from './finalize-plan.js'

export interface AssembleRenderOptions {
  outputPath: string
  /** The render's mixed track (see mixRenderAudio); absent for a silent render. */
  audioTrack?: string
  ffmpeg: {ffmpegPath: string; ffprobePath: string}
  signal?: AbortSignal
}

/**
 * Mixes the sound of the plan's output frames into one WAV track: a `--frames` range gets the
 * full render's track from its first frame on. Resolves false (and writes nothing) when nothing
 * in the composition is audible.
 */
export function mixRenderAudio(finished: FinishedPlan, outputPath: string, ffmpegPath: string, signal?: AbortSignal): Promise<boolean> {
  const {plan} = finished
  const range = renderedFrames(plan)
  const clips = clipsFrom(finished.clips, frameTime(range.start, plan.fps))
  return mixAudioTrack({clips, durationSeconds: frameTime(range.end - range.start, plan.fps), outputPath, ffmpegPath, signal})
}

/**
 * Joins the segments of every range of a plan, in frame order, into the output, with the audio
 * track in the same pass; the output appears whole or not at all.
 */
export async function assembleRender(plan: Readonly<RenderPlan>, segments: readonly SegmentRef[], options: AssembleRenderOptions): Promise<void> {
  await assembleOutput({plan, segments, ...options}).catch(async (error: unknown) => Promise.reject(await explainFullDisk(error, options.outputPath)))
}
