import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {gradingFilterFor} from './grading/grading-filter.js'
import {mayHaveMedia, openMediaPage} from './discover-media.js'
import {extractVideoFrames, framesDirectoryUrl, type VideoFrameFormat} from './extract-video-frames.js'
import type {HdrTransfer} from '../plan/render-plan.js'
import {hdrTransferOf} from './hdr/hdr-sources.js'
import type {MediaClip} from './media-clip.js'
import {probeMedia, type ProbedMedia} from './probe-media.js'
import type {PageMediaElement, RuntimeMedia} from '../runtime/runtime-media.js'
import type {PageRequests} from '../sandbox/page-requests.js'

export interface PrepareMediaOptions {
  plan: RenderPlan
  browser: BrowserChoice
  pool?: BrowserPool
  ffmpeg: {ffmpegPath: string; ffprobePath: string}
  frameFormat: VideoFrameFormat
  /** Scratch directory of this render (grading LUTs). */
  workDir: string
  /** The render's request policy: sources come from the project or through its download cache. */
  requests: PageRequests
  signal?: AbortSignal
}

export interface MediaWarning {
  code: 'video-without-audio'
  message: string
}

export interface PreparedMedia {
  /** Goes into `plan.runtime.media`: source lengths and extracted frames per element. */
  runtime: RuntimeMedia[]
  /** Every media element with its local file and clip times (the audio mix reads the audible ones). */
  clips: MediaClip[]
  warnings: MediaWarning[]
  /** HDR transfer of the sources, when any is HDR (PQ wins over HLG). */
  hdrTransfer?: HdrTransfer
}

const NONE: PreparedMedia = {runtime: [], clips: [], warnings: []}

/**
 * The render's media stage: finds the page's `<video>`/`<audio>` (after its scripts ran), fetches
 * and probes each source, extracts (and grades) video frames, and times every clip with the
 * probed lengths. A missing file or unreadable source fails here, before any frame is captured.
 */
export async function prepareMedia(options: PrepareMediaOptions): Promise<PreparedMedia> {
  if (!mayHaveMedia(options.plan.html)) return NONE
  const page = await openMediaPage(options.plan, options)
  try {
    const found = (await page.list()).filter((element) => element.src !== null)
    if (found.length === 0) return NONE
    const sources = await Promise.all(
      found.map(async (element) => {
        const path = await options.requests.locate(element.src!, element.element)
        return {element, path, probe: await probeMedia(options.ffmpeg.ffprobePath, path, element.element)}
      }),
    )
    const lengths = Object.fromEntries(sources.map(({element, probe}) => [element.index, probe.durationSeconds]))
    const timed = new Map((await page.list(lengths)).map((element) => [element.index, element]))

    const runtime: RuntimeMedia[] = []
    const clips: MediaClip[] = []
    const warnings: MediaWarning[] = []
    for (const {element, path, probe} of sources) {
      const timing = timed.get(element.index) ?? element
      runtime.push({index: element.index, sourceSeconds: probe.durationSeconds, frames: await framesFor(element, path, probe, options)})
      if (element.tag === 'video' && element.hasAudio && !probe.hasAudio) {
        warnings.push({code: 'video-without-audio', message: `${element.element} has data-has-audio but ${path} has no audio stream: it adds no sound`})
      }
      clips.push({
        index: element.index,
        tag: element.tag,
        element: element.element,
        path,
        start: timing.start,
        end: timing.end ?? timing.start + Math.max(0, probe.durationSeconds - element.playbackStart) / element.rate,
        playbackStart: element.playbackStart,
        rate: element.rate,
        volume: element.volume,
        audible: element.hasAudio && probe.hasAudio,
        channels: probe.audioChannels ?? 0,
      })
    }
    return {runtime, clips, warnings, hdrTransfer: hdrTransferOf(sources.map(({probe}) => probe))}
  } finally {
    await page.close()
  }
}

async function framesFor(element: PageMediaElement, path: string, probe: ProbedMedia, options: PrepareMediaOptions): Promise<RuntimeMedia['frames']> {
  if (element.tag !== 'video' || !probe.video) return undefined
  const grading = await gradingFilterFor(element, options.workDir)
  const frames = await extractVideoFrames({
    ffmpegPath: options.ffmpeg.ffmpegPath,
    path,
    video: probe.video,
    frameFormat: options.frameFormat,
    filter: grading,
    element: element.element,
    signal: options.signal,
  })
  return {directoryUrl: framesDirectoryUrl(frames.directory), extension: frames.extension, count: frames.count, fps: frames.fps}
}
