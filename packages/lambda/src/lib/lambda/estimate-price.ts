import {join} from 'node:path'
import {compileComposition} from 'html-video-engine/internal/lib/compose/compile-composition.js'
import {getFormat} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {renderedFrames} from 'html-video-engine/internal/lib/plan/frame-range.js'
import {planRender} from 'html-video-engine/internal/lib/plan/plan-render.js'
import {resolveRenderOptions} from 'html-video-engine/internal/lib/render/resolve-options.js'
import {planChunks} from './chunk-plan.js'
import {chunkTuningFor, functionVcpus} from './runtime/chunk-sizing.js'
import {DEFAULT_ENTRY} from './deploy-site.js'
import {estimateCost, type CostEstimate} from './estimate-cost.js'
import {renderOptionsOf, type RenderConfig} from './render-input.js'
import {checkConfig} from './validate-config.js'
import {chunkChildStatesEntered} from './state-machine-definition.js'
import {chunkFanOut} from './workflow-limits.js'

/**
 * The chunk profile the estimate assumes (not measured on Lambda here): a 240-frame 1080p chunk
 * takes about 20 s on the 6 vCPUs of a 10,240 MB function, 4 s of it the cold start; plan and
 * assemble about 10 s each. Capture time follows the pixels drawn and, below 6 vCPUs, the vCPUs.
 */
export const ASSUMED_PROFILE = {
  coldStartSeconds: 4,
  secondsPerFrameAt1080p: 16 / 240,
  planSeconds: 10,
  assembleSeconds: 10,
} as const
const PIXELS_1080P = 1920 * 1080
/** Lambda's vCPUs grow with memory, 6 at 10,240 MB (about one per 1,769 MB below that). */
const MAX_VCPUS = 6
const MB_PER_VCPU = 10240 / MAX_VCPUS
const DEFAULT_MEMORY_MB = 10240

export interface EstimatePriceOptions {
  projectDir: string
  config?: RenderConfig
  entry?: string
  /** The function's memory (default 10,240 MB; `lambda render --estimate` reads the deployed stack's). */
  memoryMb?: number
}

export interface PriceEstimate extends CostEstimate {
  frames: number
  width: number
  height: number
  chunks: number
  memoryMb: number
  /** Seconds each invocation is assumed to run: plan, every chunk, assemble. */
  assumedSeconds: {plan: number; chunks: number[]; assemble: number}
}

/**
 * What a render would cost before it is started, from the composition and the config as
 * `lambda render` plans them (frames, size, chunks) and ASSUMED_PROFILE: Lambda compute, requests
 * and /tmp plus state transitions, priced as `lambda progress` prices a finished render. S3 is not
 * included. A composition whose length is known only when it renders cannot be estimated.
 */
export async function estimatePrice(options: EstimatePriceOptions): Promise<PriceEstimate> {
  const config = options.config ?? {}
  checkConfig(config)
  const memoryMb = options.memoryMb ?? DEFAULT_MEMORY_MB
  const compiled = await compileComposition(join(options.projectDir, options.entry ?? DEFAULT_ENTRY))
  if (compiled.durationSeconds === undefined) {
    throw new EngineError('INVALID_REQUEST', 'estimate: the composition has no data-duration, so its length (and price) is known only when it renders; give its root a data-duration', {
      field: 'data-duration',
    })
  }
  const sized = {...compiled, width: config.width ?? compiled.width, height: config.height ?? compiled.height, durationSeconds: compiled.durationSeconds}
  const renderOptions = resolveRenderOptions(renderOptionsOf(config))
  const {plan} = planRender(sized, renderOptions, getFormat(renderOptions.format))
  const range = renderedFrames(plan)
  // Planned as the plan step plans it: one capture worker per vCPU of the function.
  const chunkPlan = planChunks(range, plan.segmentFrames, chunkTuningFor(config, plan.segmentFrames, config.concurrencyPerChunk ?? functionVcpus(memoryMb)))
  const scale = renderOptions.scale ?? 1
  const pixels = sized.width * scale * (sized.height * scale)
  const vcpus = Math.min(MAX_VCPUS, memoryMb / MB_PER_VCPU)
  const perFrame = ASSUMED_PROFILE.secondsPerFrameAt1080p * (pixels / PIXELS_1080P) * (MAX_VCPUS / vcpus)
  const chunkSeconds = chunkPlan.chunks.map((chunk) => round(ASSUMED_PROFILE.coldStartSeconds + (chunk.end - chunk.start) * perFrame))
  const seconds = [ASSUMED_PROFILE.planSeconds, ...chunkSeconds, ASSUMED_PROFILE.assembleSeconds]
  // Plan, the Choice, the Map, assemble, and each chunk's state; a Distributed Map (more than 40
  // chunks at once) also bills the start of each chunk's child workflow.
  const {distributed} = chunkFanOut(chunkPlan.chunks.length, chunkPlan.maxParallelChunks)
  const stateTransitions = 4 + chunkPlan.chunks.length * (distributed ? 1 + chunkChildStatesEntered() : 1)
  const cost = estimateCost(
    seconds.map((value) => ({durationMs: value * 1000, memoryMb})),
    stateTransitions,
  )
  return {
    ...cost,
    frames: range.end - range.start,
    width: Math.round(sized.width * scale),
    height: Math.round(sized.height * scale),
    chunks: chunkPlan.chunks.length,
    memoryMb,
    assumedSeconds: {plan: ASSUMED_PROFILE.planSeconds, chunks: chunkSeconds, assemble: ASSUMED_PROFILE.assembleSeconds},
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000
