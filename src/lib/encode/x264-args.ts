import {QUALITY_PRESETS, bitrateArgs, rateControl, type EncodeSettings} from './rate-control.js'

/** libx264 with the spec's presets; `--crf` replaces the preset's crf, `--video-bitrate` switches to capped VBR. */
export function x264Args(encode: EncodeSettings): string[] {
  const rate = rateControl(encode)
  return [
    '-c:v', 'libx264',
    '-preset', QUALITY_PRESETS[encode.quality].x264Preset,
    ...(rate.mode === 'crf' ? ['-crf', String(rate.crf)] : bitrateArgs(rate.bitsPerSecond)),
    '-pix_fmt', 'yuv420p',
  ]
}
