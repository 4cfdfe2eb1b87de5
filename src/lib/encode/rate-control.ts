import {EngineError} from '../errors/engine-error.js'
import type {Quality, RenderPlan} from '../plan/render-plan.js'
import {deepFreeze} from '../plan/deep-freeze.js'

export type EncodeSettings = RenderPlan['encode']

/** The spec's quality table: constant rate factor and libx264 speed preset per quality. */
export const QUALITY_PRESETS: Readonly<Record<Quality, Readonly<{crf: number; x264Preset: string}>>> = deepFreeze({
  draft: {crf: 28, x264Preset: 'ultrafast'},
  standard: {crf: 18, x264Preset: 'medium'},
  high: {crf: 15, x264Preset: 'slow'},
})

/** Either a constant quality on the x264 0-51 scale, or a target bitrate in bits per second. */
export type RateControl = {mode: 'crf'; crf: number} | {mode: 'bitrate'; bitsPerSecond: number}

/** `--video-bitrate` wins when given (the two flags are mutually exclusive upstream); else `--crf`, else the preset. */
export function rateControl(encode: EncodeSettings): RateControl {
  if (encode.videoBitrate !== undefined) return {mode: 'bitrate', bitsPerSecond: parseBitrate(encode.videoBitrate)}
  return {mode: 'crf', crf: encode.crf ?? QUALITY_PRESETS[encode.quality].crf}
}

/** `8M` -> 8000000, `2500k` -> 2500000 (the form render options already validated). */
export function parseBitrate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([MmKk])$/.exec(text.trim())
  if (!match) throw new EngineError('INVALID_FLAG', `--video-bitrate: "${text}" is not a size such as 8M or 2500k`, {videoBitrate: text})
  const scale = match[2].toLowerCase() === 'm' ? 1_000_000 : 1_000
  return Math.round(Number(match[1]) * scale)
}

/**
 * Bitrate arguments shared by the H.264 encoders: a capped VBR whose buffer holds two seconds, so
 * that a segment cannot overshoot the target for long.
 */
export function bitrateArgs(bitsPerSecond: number): string[] {
  return ['-b:v', String(bitsPerSecond), '-maxrate', String(bitsPerSecond), '-bufsize', String(bitsPerSecond * 2)]
}

/**
 * `--video-bitrate` as capped VBR, else the encoder's own constant-quality arguments for q on the
 * x264 crf scale (`--crf`, else the preset's 28 / 18 / 15). Hardware encoders map q to their scale.
 */
export function crfOrBitrateArgs(encode: EncodeSettings, constantQuality: (q: number) => string[]): string[] {
  const rate = rateControl(encode)
  return rate.mode === 'bitrate' ? bitrateArgs(rate.bitsPerSecond) : constantQuality(rate.crf)
}
