import {rename, rm, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import type {CaptionCue} from '../captions/cue.js'
import {cuesForOutput, writeWebVtt} from '../captions/write-webvtt.js'
import {renderedFrames} from '../plan/frame-range.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {outputStem} from './companion-files.js'
import {partialPath} from './partial-path.js'

/** The composition's cues on the output's clock: a `--frames` range shows them from its own zero. */
export function outputCaptionCues(plan: Readonly<RenderPlan>): CaptionCue[] {
  const range = renderedFrames(plan)
  const ms = (frame: number) => Math.round((frame * plan.fps.den * 1000) / plan.fps.num)
  return cuesForOutput(
    (plan.runtime.captions ?? []).map((captions) => captions.cues),
    ms(range.start),
    ms(range.end),
  )
}

/** `renders/clip.vtt` beside `renders/clip.mp4`; `renders/frames.vtt` beside a frame directory `renders/frames`. */
export function captionsSidecarPath(outputPath: string, isDirectory: boolean): string {
  return isDirectory ? outputPath.replace(/[\\/]+$/, '') + '.vtt' : join(dirname(outputPath), outputStem(outputPath) + '.vtt')
}

/** Writes the output's cues as WebVTT to `path`, whole or not at all. */
export async function writeCaptionsFile(plan: Readonly<RenderPlan>, path: string): Promise<void> {
  const partial = partialPath(path, '.vtt')
  try {
    await writeFile(partial, writeWebVtt(outputCaptionCues(plan)))
    await rename(partial, path)
  } catch (error) {
    await rm(partial, {force: true})
    throw error
  }
}
