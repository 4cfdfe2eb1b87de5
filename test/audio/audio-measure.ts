import {decode} from '../media/media-support.js'

/** Every track is mixed and encoded at 48 kHz: sample n plays at n / RATE seconds. */
export const RATE = 48_000

/** The decoded audio of a file, one 48 kHz float array per channel (edit lists and codec delay applied). */
export async function decodeChannels(file: string, channels = 2): Promise<Float32Array[]> {
  const raw = await decode(['-i', file, '-map', '0:a:0', '-ac', String(channels), '-ar', String(RATE), '-f', 'f32le', '-'])
  const interleaved = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4)
  return Array.from({length: channels}, (_, channel) => interleaved.filter((_, index) => index % channels === channel))
}

function span(samples: Float32Array, from: number, to: number): Float32Array {
  const window = samples.subarray(Math.round(from * RATE), Math.round(to * RATE))
  if (window.length === 0) throw new Error(`no samples between ${from} s and ${to} s (the track has ${samples.length / RATE} s)`)
  return window
}

export function decibels(amplitude: number): number {
  return 20 * Math.log10(Math.max(amplitude, 1e-10))
}

/** RMS level in dBFS of the samples between `from` and `to` seconds. */
export function rmsDb(samples: Float32Array, from: number, to: number): number {
  const window = span(samples, from, to)
  let sum = 0
  for (const sample of window) sum += sample * sample
  return decibels(Math.sqrt(sum / window.length))
}

/**
 * Peak amplitude, in dBFS, of the sine at `frequency` between `from` and `to` seconds (Goertzel):
 * tells two tones apart where clips overlap, and ignores the other's level.
 */
export function toneDb(samples: Float32Array, frequency: number, from: number, to: number): number {
  const window = span(samples, from, to)
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / RATE)
  let previous = 0
  let beforePrevious = 0
  for (const sample of window) {
    const current = sample + coefficient * previous - beforePrevious
    beforePrevious = previous
    previous = current
  }
  const power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
  return decibels((2 * Math.sqrt(Math.max(power, 0))) / window.length)
}

/** Seconds from the first to just after the last sample louder than `threshold` (NaN when silent). */
export function soundSpan(samples: Float32Array, threshold = 0.05): {start: number; end: number} {
  const loud = (sample: number) => Math.abs(sample) > threshold
  const first = samples.findIndex(loud)
  const last = samples.findLastIndex(loud)
  return first < 0 ? {start: Number.NaN, end: Number.NaN} : {start: first / RATE, end: (last + 1) / RATE}
}

/** Frequency in Hz of the tone between `from` and `to` seconds, from its rising zero crossings. */
export function frequencyOf(samples: Float32Array, from: number, to: number): number {
  const window = span(samples, from, to)
  const crossings: number[] = []
  for (let i = 1; i < window.length; i++) {
    if (window[i - 1] < 0 && window[i] >= 0) crossings.push(i - 1 + window[i - 1] / (window[i - 1] - window[i]))
  }
  if (crossings.length < 2) return Number.NaN
  return ((crossings.length - 1) * RATE) / (crossings.at(-1)! - crossings[0])
}
