import type {CaptureImageFormat, HdrTransfer} from '../plan/render-plan.js'
import {ENCODER_THREADS} from './deterministic-args.js'
import {QUALITY_PRESETS, bitrateArgs, rateControl, type EncodeSettings} from './rate-control.js'
import {deepFreeze} from '../plan/deep-freeze.js'

/** ffmpeg / x265 names of each HDR transfer function. */
export const HDR_TRANSFER_NAMES: Readonly<Record<HdrTransfer, string>> = deepFreeze({pq: 'smpte2084', hlg: 'arib-std-b67'})

/** Luminance the browser's white (sRGB 1.0) is shown at: the BT.2408 reference white for graphics in HDR. */
export const SDR_WHITE_NITS = 203

/**
 * Mastering display of the common HDR10 default: P3-D65 primaries (in 0.00002 units), 1000 nits
 * peak and 0.0001 nits black (in 0.0001 units), with MaxCLL 1000 / MaxFALL 400 nits. Browser pixels
 * never exceed SDR white, so these bound rather than describe the content.
 */
const MASTER_DISPLAY = 'G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)'
const MAX_CLL = '1000,400'

export function hdrTags(transfer: HdrTransfer): string[] {
  return [
    '-colorspace', 'bt2020nc',
    '-color_primaries', 'bt2020',
    '-color_trc', HDR_TRANSFER_NAMES[transfer],
    '-color_range', 'tv',
    // Apple players only decode HEVC in MP4 tagged hvc1 (parameter sets in the sample description).
    '-tag:v', 'hvc1',
  ]
}

/**
 * The `-vf` chain from captured sRGB images to 10-bit limited-range BT.2020 in the HDR transfer.
 * zscale linearises with the sRGB EOTF, converts BT.709 to BT.2020 primaries in linear light, and
 * re-encodes with `npl` = 203: linear 1.0 (page white) becomes 203 nits, PQ code 0.5806 (10-bit Y
 * 573), and for HLG the BT.2408 75% signal (Y 721). Black stays at Y 64.
 */
export function hdrFilter(imageFormat: CaptureImageFormat, transfer: HdrTransfer): string {
  // Browser JPEGs are BT.601 full-range YCbCr; PNGs decode to RGB, which needs no input matrix.
  const input = imageFormat === 'jpeg' ? 'min=470bg:rin=full:' : ''
  return (
    `zscale=${input}tin=iec61966-2-1:pin=bt709:` +
    `t=${HDR_TRANSFER_NAMES[transfer]}:p=bt2020:m=bt2020nc:r=limited:npl=${SDR_WHITE_NITS},format=yuv420p10le`
  )
}

/**
 * libx265 Main10 with the quality presets' speed and crf (x265's crf scale is close to x264's).
 * `--crf 0` means lossless, as it does with x264. The same settings in every segment keep their
 * parameter sets identical, so segments join by stream copy.
 */
export function x265Args(encode: EncodeSettings, transfer: HdrTransfer): string[] {
  const rate = rateControl(encode)
  const params = [
    `colorprim=bt2020`,
    `transfer=${HDR_TRANSFER_NAMES[transfer]}`,
    `colormatrix=bt2020nc`,
    'range=limited',
    `master-display=${MASTER_DISPLAY}`,
    `max-cll=${MAX_CLL}`,
    // Every segment is its own encode: a closed GOP keeps its pictures from referring past its end.
    'open-gop=0',
    'scenecut=0',
    // x265 sizes its thread pool from the machine's cores, and its output follows the pool: pin it.
    `pools=${ENCODER_THREADS}`,
    'frame-threads=1',
    // The info SEI names the CPU's features (cpuid), which differ between machines.
    'info=0',
    'log-level=error',
    ...(rate.mode === 'crf' && rate.crf === 0 ? ['lossless=1'] : []),
  ]
  return [
    '-c:v', 'libx265',
    '-preset', QUALITY_PRESETS[encode.quality].x264Preset,
    ...(rate.mode === 'crf' ? (rate.crf === 0 ? [] : ['-crf', String(rate.crf)]) : bitrateArgs(rate.bitsPerSecond)),
    '-pix_fmt', 'yuv420p10le',
    '-profile:v', 'main10',
    '-x265-params', params.join(':'),
  ]
}
