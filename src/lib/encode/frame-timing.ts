import type {Fps} from '../plan/fps.js'

/** The frame rate as ffmpeg reads it (`-framerate 30000/1001`), never rounded to a float. */
export function ffmpegRate(fps: Fps): string {
  return `${fps.num}/${fps.den}`
}

/**
 * A mov/mp4 track timescale in which every frame lasts a whole number of ticks (so segment
 * durations add up exactly when concatenated), kept near the customary 90 kHz.
 */
export function trackTimescale(fps: Fps): number {
  return fps.num >= 90_000 ? fps.num : fps.num * Math.ceil(90_000 / fps.num)
}
