import {availableParallelism} from 'node:os'
import {DEFAULT_CHUNK_SIZE, type ChunkTuning} from '../chunk-plan.js'

/** Lambda gives a function CPU in proportion to its memory: one vCPU per 1,769 MB, six at 10,240 MB. */
export const MB_PER_VCPU = 1769
export const MAX_FUNCTION_VCPUS = 6

export function functionVcpus(memoryMb: number): number {
  return Math.min(MAX_FUNCTION_VCPUS, Math.max(1, Math.ceil(memoryMb / MB_PER_VCPU)))
}

/**
 * The vCPUs an invocation can use: the function's share of its memory, and never more than the
 * machine has (on Lambda the two agree; the local stack runs on a developer's cores).
 */
export function invocationVcpus(memoryMb: number, cores = availableParallelism()): number {
  return Math.min(functionVcpus(memoryMb), cores)
}

/**
 * Capture workers a chunk runs: `concurrencyPerChunk` when given, else one per vCPU. A worker
 * captures and encodes whole grid segments, so a chunk never gets more workers than segments.
 */
export function chunkWorkers(segmentsInChunk: number, vcpus: number, concurrencyPerChunk?: number): number {
  return Math.max(1, Math.min(concurrencyPerChunk ?? vcpus, segmentsInChunk))
}

/**
 * Frames per chunk when the render names neither a chunk size nor a target: the spec's 240, and
 * at least one grid segment for each worker, so that no paid vCPU sits idle (a 6-vCPU function
 * and 4 s segments at 30 fps: 720 frames; 240 would leave four of six idle). The grid itself
 * stays the composition's, so the output is the file a local render makes.
 */
export function defaultChunkFrames(segmentFrames: number, workers: number): number {
  return Math.max(DEFAULT_CHUNK_SIZE, segmentFrames * workers)
}

/**
 * The chunk tuning a render is planned with: its own chunk size or target when it names one, else
 * defaultChunkFrames for `workers` per chunk. The plan step and `--estimate` both plan with it.
 */
export function chunkTuningFor(config: ChunkTuning, segmentFrames: number, workers: number): ChunkTuning {
  if (config.chunkSize !== undefined || config.targetChunkFrames !== undefined) return config
  return {...config, chunkSize: defaultChunkFrames(segmentFrames, workers)}
}

/** A chunk size the render chose itself that leaves vCPUs without a segment to work on. */
export function idleCpuWarning(segmentsPerChunk: number, vcpus: number, segmentFrames: number): {code: 'chunk-cpu-idle'; message: string} | undefined {
  if (segmentsPerChunk >= vcpus) return undefined
  return {
    code: 'chunk-cpu-idle',
    message:
      `each chunk holds ${segmentsPerChunk} segment(s) of ${segmentFrames} frames but the function has ${vcpus} vCPUs: ` +
      `${vcpus - segmentsPerChunk} of them idle while billed; use --frames-per-chunk ${segmentFrames * vcpus}, a shorter --keyframe-interval, or less --memory`,
  }
}
