export {assembleOutput, type AssembleOutputOptions} from './assemble-output.js'
export {BT709_TAGS, bt709Filter} from './bt709.js'
export {checkFormatEncoders, type FormatEncoderStatus} from './format-encoder-status.js'
export {assertFormatAccepts, clampFpsToFormat} from './format-constraints.js'
export {
  captureImageFormat,
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
export {getFormat, listFormats, registerFormat} from './format-registry.js'
export {openFrameSequenceWriter} from './frame-sequence-writer.js'
export {ffmpegRate, trackTimescale} from './frame-timing.js'
export {GPU_ENCODERS, gpuEncoderByName, gpuEncodersFor, type GpuEncoder, type GpuEncoderName} from './gpu/gpu-encoders.js'
export {probeGpuEncoders, selectGpuEncoder, type GpuProbeResult} from './gpu/select-gpu-encoder.js'
export {listEncoders} from './list-encoders.js'
export {probeFrameCount} from './probe-frame-count.js'
export {QUALITY_PRESETS, rateControl, type EncodeSettings, type RateControl} from './rate-control.js'
export {FFMPEG_PATH_ENV, FFPROBE_PATH_ENV, resolveFfmpeg, type FfmpegInfo, type ResolveFfmpegOptions} from './resolve-ffmpeg.js'
export {runFfmpeg} from './run-ffmpeg.js'
export {openSegmentEncoder, type OpenSegmentEncoderOptions, type SegmentEncoder} from './segment-encoder.js'
export {segmentPath} from './segment-path.js'
