import type {ScriptLines} from '../compose/script-line-map.js'
import type {Fps} from './fps.js'
import type {RuntimeConfig} from '../runtime/runtime-config.js'
import type {NetworkSettings} from '../sandbox/network-settings.js'

export type Quality = 'draft' | 'standard' | 'high'
export const QUALITIES: readonly Quality[] = ['draft', 'standard', 'high']

/** HDR transfer function of an output or a source: PQ (SMPTE ST 2084) or HLG (ARIB STD-B67). */
export type HdrTransfer = 'pq' | 'hlg'

/** `--video-frame-format`: auto picks png for source videos with alpha, jpg for opaque ones. */
export type VideoFrameFormat = 'auto' | 'jpg' | 'png'

/** Image format a capture worker asks the browser for. */
export type CaptureImageFormat = 'jpeg' | 'png'

export interface FrameRange {
  /** First frame, inclusive. */
  start: number
  /** Last frame, exclusive. */
  end: number
}

/**
 * Everything needed to render any range of frames of one composition, as plain serialisable
 * data. planRender makes it from the compiled page and the options; finalizePlan completes it
 * once (GPU encoder, media, HDR) and freezes it; a local worker and a Lambda chunk both take
 * (finished plan, FrameRange) and nothing changes it after that.
 */
export interface RenderPlan {
  /** Compiled HTML: sub-compositions inlined, scripts scoped. */
  html: string
  /**
   * Directory URL relative assets resolve against: the composition's folder on the private page
   * origin (`http://project.engine.localhost/scenes/`), the same on every machine.
   */
  baseUrl: string
  /** The project's directory on this machine: the page origin serves its files and no others. */
  projectDir: string
  /** What the page may reach beyond the project (see NetworkSettings). */
  network: NetworkSettings
  /** Name the compiled page is served as under `baseUrl` (the composition's file name), so page errors name it. */
  documentName?: string
  /** Where the inline scripts of `html` were written, so page errors name the author's file and line. */
  scriptLines?: ScriptLines[]
  runtime: RuntimeConfig
  /** `warn` (`--page-errors warn`): uncaught page errors are reported and the capture goes on; absent: they fail it. */
  pageErrors?: 'warn'
  /** The root's `data-ready-timeout`: how long a capture waits for the page to be ready, holds included (absent: 30 s). */
  readyTimeoutSeconds?: number
  /** How source videos' frames are extracted (absent: auto); the media stage fills `runtime.media`. */
  videoFrameFormat?: VideoFrameFormat
  /** CSS size of the page (the composition's data-width/data-height). */
  width: number
  height: number
  /**
   * Device scale factor the page is drawn at (`--scale`); frames are width·scale x height·scale.
   * Absent for 1, so that unscaled plans stay as they were.
   */
  scale?: number
  fps: Fps
  /** Frames of the whole composition: the timeline every frame index, segment cut and clip refers to. */
  totalFrames: number
  /**
   * The frames the output holds (`--frames`), when not all of them: output frame 0 is composition
   * frame `start`. Segments are still cut on the composition's grid (see gridSegments), so a range
   * encodes the same segments as the full render wherever the two share whole segments.
   */
  frameRange?: FrameRange
  /**
   * Frames per encoded segment: the keyframe interval in frames (see segment-grid.ts). Segments
   * are cut at multiples of it from frame 0, whatever the worker count or chunking, so every split
   * of the render encodes the same segments.
   */
  segmentFrames: number
  /** Format plugin name (mp4, mov, webm, gif, png-sequence, or a third-party one). */
  format: string
  capture: {
    imageFormat: CaptureImageFormat
    /** JPEG quality 0-100, ignored for png. */
    jpegQuality: number
    /** Make the default page background transparent (alpha formats). */
    transparent: boolean
  }
  /** What to make of the composition's captions besides drawing them (`--captions-sidecar`, `--captions-track`). */
  captions?: {sidecar: boolean; track: boolean}
  encode: {
    quality: Quality
    crf?: number
    videoBitrate?: string
    gifLoop: number
    /** HLS: seconds of video per media segment (see DEFAULT_HLS_SEGMENT_SECONDS); other formats ignore it. */
    hlsSegmentSeconds?: number
    gpu: boolean
    /** Name of the hardware encoder chosen once per render (selectGpuEncoder) when `gpu` is set. */
    gpuEncoder?: string
    /**
     * HDR transfer of the output (mp4 only: H.265 10-bit BT.2020), decided once the sources are
     * probed (decideHdrOutput); absent for SDR.
     */
    hdr?: HdrTransfer
  }
}
