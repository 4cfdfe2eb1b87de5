import type {FormatCapabilities} from '../plan/format-capabilities.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import type {GpuEncoder} from './gpu/gpu-encoders.js'
import type {EncodeSettings} from './rate-control.js'

/** How the output carries audio (the track itself is mixed by the engine and joined at assembly). */
export type AudioKind = 'aac' | 'opus' | 'none' | 'sidecar'

/**
 * What each capture worker makes from its contiguous frame range:
 * - `video-segment`: pipes its images into its own ffmpeg, producing a segment that starts on a
 *   keyframe; assembly joins the segments by stream copy (no re-encode).
 * - `image-stream`: appends the captured images to a file unchanged (no CPU spent); assembly
 *   encodes all of them once (formats that cannot be cut, such as GIF).
 * - `frame-files`: writes one file per frame; assembly moves them into the output directory.
 */
export type WorkerOutputKind = 'video-segment' | 'image-stream' | 'frame-files'

/** ffmpeg arguments around the image pipe input: `[...input, -f image2pipe ... -i pipe:0, ...output, path]`. */
export interface FfmpegArgs {
  input: string[]
  output: string[]
}

export interface SegmentArgsContext {
  plan: RenderPlan
  range: FrameRange
  /** The hardware encoder chosen for this render (see selectGpuEncoder) when plan.encode.gpu is set. */
  gpuEncoder?: GpuEncoder
}

/** One worker's output and the frames it holds. */
export interface SegmentRef {
  path: string
  range: FrameRange
}

export interface AssemblyContext {
  plan: RenderPlan
  /** Worker outputs in frame order, together covering the output's frames (all, or the plan's `frameRange`). */
  segments: readonly SegmentRef[]
  /** Temporary file to write; it replaces the real output only after assemble resolves. */
  outputPath: string
  /** Private directory for intermediates (palettes, lists); removed afterwards. */
  scratchDir: string
  /** Runs ffmpeg (quiet, overwriting); `stdinFiles` are streamed into `-i pipe:0` one after another. */
  ffmpeg(args: string[], options?: {stdinFiles?: readonly string[]}): Promise<void>
  /**
   * Arguments that read every segment back to back and stream-copy the video with exact frame
   * timestamps (concat demuxer), and encode the render's audio track (if any) into the same file
   * as the format's `audio` says; append muxer options and the output path. A format that builds
   * its own input instead gets the track muxed in a second pass.
   */
  copySegments(): Promise<string[]>
  /**
   * The output's file name without its extension (`clip` for renders/clip.m3u8): companion files
   * are named from it, so that several outputs can share a folder.
   */
  outputStem: string
  /**
   * A private directory for the files a format with `companionFilePattern` writes beside its output
   * (an HLS playlist's media segments), named `<outputStem><rest>` where the pattern matches `<rest>`.
   * Once assemble resolves they are moved next to the output under the same names, before the
   * output itself appears; files of an earlier render of the same output that match and were not
   * written again are removed. The output refers to them by name (relative to its own folder).
   */
  companionDir: string
}

interface FormatPluginBase extends FormatCapabilities {
  readonly description: string
  /** The plugin API version the plugin was written for (see src/plugin); newer than the engine's is refused. */
  readonly apiVersion?: number
  readonly audio: AudioKind
  /** `ffmpeg -encoders` names this format needs for these settings (for `engine doctor`). */
  requiredEncoders(encode: EncodeSettings): string[]
  /**
   * The media type of the output (of each frame file, for `frame-files`), sent by `engine serve`
   * as Content-Type. Without it the type is guessed from the extension, else
   * application/octet-stream.
   */
  readonly mimeType?: string
}

/**
 * How the engine checks that an assembled output holds every frame: by default ffprobe counts its
 * video packets. A format ffprobe cannot count (animated WebP, say) gives its own counter; one
 * whose output is not a frame sequence (a contact sheet, a sprite strip) sets `false` to opt out.
 */
interface FrameCounting {
  readonly countFrames?: false | ((outputPath: string) => Promise<number>)
}

/**
 * An output of several files: one file the user names (a playlist) and companions beside it (its
 * segments). The pattern matches what follows the output's stem in a companion's name (`_00000.ts`
 * of clip_00000.ts); the engine publishes, lists (for `engine serve`, uploads and batch checks) and
 * cleans up companions by it. Companions are counted in the output's frames only through the output
 * (ffprobe follows a playlist to its segments).
 */
interface CompanionFiles {
  readonly companionFilePattern?: RegExp
}

export interface VideoSegmentFormat extends FormatPluginBase, FrameCounting, CompanionFiles {
  readonly worker: 'video-segment'
  /** Extension of the output file, with the dot. */
  readonly extension: string
  /** Extension of a worker's segment file, with the dot. */
  readonly segmentExtension: string
  segmentArgs(context: SegmentArgsContext): FfmpegArgs
  assemble(context: AssemblyContext): Promise<void>
}

export interface ImageStreamFormat extends FormatPluginBase, FrameCounting, CompanionFiles {
  readonly worker: 'image-stream'
  readonly extension: string
  assemble(context: AssemblyContext): Promise<void>
}

export interface FrameFilesFormat extends FormatPluginBase {
  readonly worker: 'frame-files'
  /** Name of frame `index` inside the output directory. */
  frameFileName(index: number): string
  /** Matches names frameFileName produces; stale ones from an earlier render are removed. */
  readonly frameFilePattern: RegExp
}

export type FormatPlugin = VideoSegmentFormat | ImageStreamFormat | FrameFilesFormat

/** The output file extension, or undefined when the format writes a directory. */
export function outputExtension(plugin: FormatPlugin): string | undefined {
  return plugin.worker === 'frame-files' ? undefined : plugin.extension
}

