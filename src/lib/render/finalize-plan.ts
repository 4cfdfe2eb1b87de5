import {createHash} from 'node:crypto'
import type {BrowserChoice} from '../browser/browser-choice.js'
import type {BrowserPool} from '../browser/browser-pool.js'
import {selectGpuEncoder} from '../encode/gpu/select-gpu-encoder.js'
import {decideHdrOutput} from '../encode/hdr-output.js'
import type {MediaClip} from '../media/media-clip.js'
import {prepareMedia} from '../media/prepare-media.js'
import type {HdrTransfer, RenderPlan} from '../plan/render-plan.js'
import type {PageRequests} from '../sandbox/page-requests.js'
import {deepFreeze} from '../plan/deep-freeze.js'

export interface FinalizePlanOptions {
  browser: BrowserChoice
  pool?: BrowserPool
  ffmpeg: {ffmpegPath: string; ffprobePath: string}
  /** The render's request policy: media sources come from the project or its download cache. */
  requests: PageRequests
  /** Scratch directory of this render (grading LUTs). */
  workDir: string
  /** `--hdr` and `--sdr`. */
  dynamicRange: {hdr: boolean; sdr: boolean}
  signal?: AbortSignal
}

/** A plan nothing changes any more, and what finishing it found out on the way. */
export interface FinishedPlan {
  /** Frozen, deeply: a stage that tries to complete it later fails instead of diverging. */
  readonly plan: Readonly<RenderPlan>
  /** Content hash of the plan (see planHash): every machine rendering part of it must agree. */
  readonly hash: string
  /** Every media element with its file on this machine; the audio mix reads the audible ones. */
  readonly clips: readonly MediaClip[]
  readonly warnings: readonly {code: string; message: string}[]
  /** HDR transfer of the sources, whether or not the output carries it. */
  readonly hdrSources?: HdrTransfer
}

/**
 * Completes a plan once, before any frame: the GPU encoder chosen for this machine, the media
 * stage (sources probed, video frames extracted, clips timed), and the output's dynamic range,
 * which follows the probed sources. Fonts were resolved when the page was compiled. The result is
 * frozen: every range of it renders the same way wherever it runs.
 */
export async function finalizePlan(planned: RenderPlan, options: FinalizePlanOptions): Promise<FinishedPlan> {
  const [gpuEncoder, media] = await Promise.all([
    planned.encode.gpu ? selectGpuEncoder({ffmpegPath: options.ffmpeg.ffmpegPath}).then((encoder) => encoder.name) : undefined,
    prepareMedia({...options, plan: planned, frameFormat: planned.videoFrameFormat ?? 'auto'}),
  ])
  const hdr = decideHdrOutput({...options.dynamicRange, format: planned.format, gpu: planned.encode.gpu, sources: media.hdrTransfer})
  const plan: RenderPlan = structuredClone({
    ...planned,
    runtime: {...planned.runtime, media: media.runtime},
    encode: {...planned.encode, ...(gpuEncoder && {gpuEncoder}), ...(hdr.transfer && {hdr: hdr.transfer})},
  })
  return {
    plan: deepFreeze(plan),
    hash: planHash(plan),
    clips: media.clips,
    warnings: [...media.warnings, ...(hdr.warning ? [hdr.warning] : [])],
    ...(media.hdrTransfer && {hdrSources: media.hdrTransfer}),
  }
}

/**
 * sha256 of the plan as JSON, without `projectDir`: where this machine keeps the project's files
 * is the one part of a plan that differs between the machines rendering it.
 */
export function planHash(plan: Readonly<RenderPlan>): string {
  const {projectDir: _machineLocal, ...portable} = plan
  return createHash('sha256').update(JSON.stringify(portable)).digest('hex')
}
