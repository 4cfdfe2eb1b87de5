import {EngineError, isEngineError} from '../../errors/engine-error.js'
import {listEncoders} from '../list-encoders.js'
import {runFfmpeg} from '../run-ffmpeg.js'
import {gpuEncodersFor, type GpuEncoder} from './gpu-encoders.js'

export interface GpuProbeResult {
  encoder: GpuEncoder
  usable: boolean
  /** Why it is not usable: missing from this ffmpeg build, or the probe encode's error. */
  reason?: string
}

export interface GpuProbeOptions {
  ffmpegPath: string
  platform?: NodeJS.Platform
  /** Per candidate; a driver that hangs must not hang the render. */
  timeoutMs?: number
}

const PROBE_TIMEOUT_MS = 2_000

/**
 * Tries every backend of the platform with a one-frame encode (`-f null -`). An encoder listed by
 * `ffmpeg -encoders` is only compiled in: whether the device and driver exist shows only by using it.
 */
export async function probeGpuEncoders(options: GpuProbeOptions): Promise<GpuProbeResult[]> {
  const available = await listEncoders(options.ffmpegPath)
  const results: GpuProbeResult[] = []
  for (const encoder of gpuEncodersFor(options.platform ?? process.platform)) {
    if (!available.has(encoder.encoder)) {
      results.push({encoder, usable: false, reason: 'not built into this ffmpeg'})
      continue
    }
    results.push(await probeOne(options.ffmpegPath, encoder, options.timeoutMs ?? PROBE_TIMEOUT_MS))
  }
  return results
}

const selected = new Map<string, Promise<GpuEncoder>>()

/** The first usable backend (cached per ffmpeg and platform), or GPU_ENCODER_UNAVAILABLE listing what was tried. */
export function selectGpuEncoder(options: GpuProbeOptions): Promise<GpuEncoder> {
  const key = `${options.ffmpegPath}\0${options.platform ?? process.platform}`
  let result = selected.get(key)
  if (!result) {
    result = firstUsable(options)
    selected.set(key, result)
    result.catch(() => selected.delete(key))
  }
  return result
}

async function firstUsable(options: GpuProbeOptions): Promise<GpuEncoder> {
  const platform = options.platform ?? process.platform
  const results = await probeGpuEncoders(options)
  const usable = results.find((result) => result.usable)
  if (usable) return usable.encoder
  const tried = results.map((result) => `${result.encoder.encoder} (${result.reason})`)
  throw new EngineError(
    'GPU_ENCODER_UNAVAILABLE',
    `--gpu: no hardware H.264 encoder works on this machine (${platform}); ` +
      (tried.length > 0 ? `tried ${tried.join('; ')}. ` : 'this platform has no supported backend. ') +
      'Render without --gpu to encode with libx264, or install the GPU driver and an ffmpeg built with its encoder.',
    {platform, tried: results.map((result) => ({encoder: result.encoder.encoder, reason: result.reason}))},
  )
}

async function probeOne(ffmpegPath: string, encoder: GpuEncoder, timeoutMs: number): Promise<GpuProbeResult> {
  const filter = ['format=yuv420p', encoder.uploadFilter].filter(Boolean).join(',')
  const args = [
    ...encoder.inputArgs(),
    '-f', 'lavfi', '-i', 'color=c=black:s=256x144:r=30',
    '-frames:v', '1', '-vf', filter,
    ...encoder.videoArgs({quality: 'draft', gifLoop: 0, gpu: true}),
    '-f', 'null', '-',
  ]
  try {
    await runFfmpeg(ffmpegPath, args, {what: `probing ${encoder.encoder}`, timeoutMs})
    return {encoder, usable: true}
  } catch (error) {
    if (!isEngineError(error, 'ENCODE_FAILED')) throw error
    // The first line is the device's own complaint ("Cannot load libcuda.so.1"); later ones are generic.
    const stderr = String((error.details as {stderr?: string} | undefined)?.stderr ?? '')
    const first = stderr.split('\n').find(Boolean)?.replace(/^\[[^\]]+\]\s*/, '')
    return {encoder, usable: false, reason: first ?? error.message}
  }
}
