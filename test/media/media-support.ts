import {execFile} from 'node:child_process'
import {promisify} from 'node:util'

const exec = promisify(execFile)

/** Runs ffmpeg quietly (tests make their media with lavfi sources). */
export async function ffmpeg(args: string[]): Promise<void> {
  await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args])
}

/** Decoded output of ffmpeg as raw bytes. */
export async function decode(args: string[]): Promise<Buffer> {
  const {stdout} = await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...args], {encoding: 'buffer', maxBuffer: 256 * 1024 * 1024})
  return stdout
}

/** Frame `index` of a video as packed RGB bytes. */
export function rgbFrame(file: string, index: number): Promise<Buffer> {
  return decode(['-i', file, '-vf', `select=eq(n\\,${index})`, '-frames:v', '1', '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-'])
}

/** Mean absolute difference of two equally sized images, 0-255. */
export function meanDifference(a: Buffer, b: Buffer): number {
  if (a.length !== b.length || a.length === 0) throw new Error(`images differ in size: ${a.length} vs ${b.length}`)
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i])
  return sum / a.length
}

/** Mean luma of every frame of a video (scaled down), in frame order. */
export async function frameBrightness(file: string): Promise<number[]> {
  const raw = await decode(['-i', file, '-vf', 'scale=32:18,format=gray', '-f', 'rawvideo', '-'])
  const size = 32 * 18
  const means: number[] = []
  for (let offset = 0; offset + size <= raw.length; offset += size) {
    let sum = 0
    for (let i = offset; i < offset + size; i++) sum += raw[i]
    means.push(sum / size)
  }
  return means
}

/** The decoded audio as 48 kHz mono float samples (edit lists and codec delay applied by the decoder). */
export async function audioSamples(file: string): Promise<Float32Array> {
  const raw = await decode(['-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-f', 'f32le', '-'])
  return new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4)
}

/** Seconds at which the first sample louder than `threshold` plays. */
export function onsetSeconds(samples: Float32Array, threshold = 0.05): number {
  const index = samples.findIndex((sample) => Math.abs(sample) > threshold)
  return index < 0 ? Number.NaN : index / 48_000
}
