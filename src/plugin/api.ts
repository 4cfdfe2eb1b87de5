// The values and types of the plugin API; `index.ts` documents them and adds the hook types.
export {PLUGIN_API_VERSION as apiVersion} from '../lib/encode/format-registry.js'

export type {
  AssemblyContext,
  AudioKind,
  FfmpegArgs,
  FormatPlugin,
  FrameFilesFormat,
  ImageStreamFormat,
  SegmentArgsContext,
  SegmentRef,
  VideoSegmentFormat,
  WorkerOutputKind,
} from '../lib/encode/format-plugin.js'
export type {GpuEncoder as GpuEncoderPlugin} from '../lib/encode/gpu/gpu-encoders.js'
export type {FormatCapabilities} from '../lib/plan/format-capabilities.js'
export type {CaptureImageFormat, FrameRange, HdrTransfer, Quality, RenderPlan} from '../lib/plan/render-plan.js'

// Frame rate
export {formatFps, fpsValue, frameTime, type Fps} from '../lib/plan/fps.js'
export {ffmpegRate, trackTimescale} from '../lib/encode/frame-timing.js'
// Colour tags and conversions
export {BT709_TAGS, bt709Filter} from '../lib/encode/bt709.js'
export {HDR_TRANSFER_NAMES, hdrFilter, hdrTags} from '../lib/encode/hdr-encode.js'
// Rate control and encoder arguments
export {QUALITY_PRESETS, bitrateArgs, crfOrBitrateArgs, parseBitrate, rateControl, type EncodeSettings, type RateControl} from '../lib/encode/rate-control.js'
export {x264Args} from '../lib/encode/x264-args.js'
export {x265Args} from '../lib/encode/hdr-encode.js'
// Errors a plugin throws for bad input (a code, a message naming the fix, details)
export {EngineError, isEngineError, type ErrorCode} from '../lib/errors/engine-error.js'

