export {assembleOutput, type AssembleOutputOptions} from './assemble-output.js'
export {BT709_TAGS, bt709Filter} from './bt709.js'
export {checkFormatEncoders, type FormatEncoderStatus} from './format-encoder-status.js'
export {
  outputExtension,
  type AssemblyContext,
  type AudioKind,
  type FfmpegArgs,
  type FormatPlugin,
  type FrameFilesFormat,
  type ImageStreamFormat,
  type SegmentArgsContext,
  type SegmentRef,
  type VideoSegmentFormat,
  type WorkerOutputKind,
} from './format-plugin.js'
export {formatSource, getFormat, listFormats, PLUGIN_API_VERSION, registerFormat} from './format-registry.js'
export {registerHookOutcome, type HookOutcome, type PluginHookName} from './register-plugin-hooks.js'
export {openFrameSequenceWriter} from './frame-sequence-writer.js'
export {ffmpegRate, trackTimescale} from './frame-timing.js'
export {gpuEncoderByName, gpuEncodersFor, listGpuEncoders, registerGpuEncoder, type GpuEncoder} from './gpu/gpu-encoders.js'
export {probeGpuEncoders, selectGpuEncoder, type GpuProbeResult} from './gpu/select-gpu-encoder.js'
export {listEncoders} from './list-encoders.js'
export {probeFrameCount} from './probe-frame-count.js'
export {QUALITY_PRESETS, crfOrBitrateArgs, rateControl, type EncodeSettings, type RateControl} from './rate-control.js'
export {x264Args} from './x264-args.js'
export {FFMPEG_PATH_ENV, FFPROBE_PATH_ENV, resolveFfmpeg, type FfmpegInfo, type ResolveFfmpegOptions} from './resolve-ffmpeg.js'
export {runFfmpeg} from './run-ffmpeg.js'
export {openSegmentEncoder, type OpenSegmentEncoderOptions} from './segment-encoder.js'
export type {SegmentEncoder} from './segment-encoder-contract.js'
export {segmentPath} from './segment-path.js'
