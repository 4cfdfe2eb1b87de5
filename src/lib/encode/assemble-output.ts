import {mkdir, rename, rm, stat} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {describeFrameRange, renderedFrames} from '../plan/frame-range.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import {assembleFrameDirectory} from './assemble-frame-directory.js'
import {muxAudioIntoFile, writeAudioSidecar, type AssemblyAudio} from './audio-track.js'
import {captionsSidecarPath, writeCaptionsFile} from './caption-outputs.js'
import {copySegmentsArgs, type AssemblySubtitles} from './concat-input.js'
import type {AssemblyContext, ImageStreamFormat, SegmentRef, VideoSegmentFormat} from './format-plugin.js'
import {getFormat} from './format-registry.js'
import {partialPath} from './partial-path.js'
import {countOutputFrames} from './count-output-frames.js'
import {outputStem, publishCompanionFiles, removeFiles, removeStaleCompanions} from './companion-files.js'
import {runFfmpeg} from './run-ffmpeg.js'
import {makeDirectory} from '../files/make-directory.js'
import {makeTempDirectory} from '../files/temp-directory.js'
import {endSpan, spanStart} from '../trace/timeline.js'

export interface AssembleOutputOptions {
  plan: RenderPlan
  /** Worker outputs (files, or directories for frame-file formats) with their frame ranges. */
  segments: readonly SegmentRef[]
  outputPath: string
  /** The render's mixed audio track (see mixAudioTrack), carried as the format carries audio. */
  audioTrack?: string
  ffmpeg: {ffmpegPath: string; ffprobePath: string}
  signal?: AbortSignal
}

/**
 * Joins the workers' outputs into the final file without re-encoding the video (GIF: its one
 * encode), with the audio track in the same pass: muxed into mp4/mov/webm, an `audio.aac` sidecar
 * in a frame directory, nothing for formats without audio. The result is written next to the
 * output under a hidden temporary name, its frames are counted (as its format counts them), and only then is it renamed over
 * the output: a failed render leaves nothing at the output path.
 */
export async function assembleOutput(options: AssembleOutputOptions): Promise<void> {
  const plugin = getFormat(options.plan.format)
  const range = renderedFrames(options.plan)
  const expectedFrames = range.end - range.start
  assertSegmentsCover(options.segments, range, options.outputPath)
  if (plugin.worker === 'frame-files') {
    await assembleFrameDirectory({plugin, segments: options.segments, outputPath: options.outputPath, expectedFrames})
    if (options.audioTrack && plugin.audio === 'sidecar') {
      await writeAudioSidecar({directory: options.outputPath, trackPath: options.audioTrack, ffmpegPath: options.ffmpeg.ffmpegPath, signal: options.signal})
    }
    if (options.plan.captions?.sidecar) await writeCaptionsFile(options.plan, captionsSidecarPath(options.outputPath, true))
    return
  }
  await assertNotDirectory(options.outputPath, plugin.extension)
  await makeDirectory(dirname(options.outputPath))
  const partial = partialPath(options.outputPath, plugin.extension)
  const scratchDir = await makeTempDirectory('assemble')
  const companionDir = join(scratchDir, 'companions')
  let published: string[] = []
  const audio: AssemblyAudio | undefined = options.audioTrack && (plugin.audio === 'aac' || plugin.audio === 'opus') ? {kind: plugin.audio, trackPath: options.audioTrack} : undefined
  try {
    await mkdir(companionDir)
    const subtitles = await subtitleTrack(options.plan, plugin, scratchDir)
    const context = assemblyContext(plugin, options, partial, {scratchDir, companionDir}, audio, subtitles)
    const joining = spanStart()
    await plugin.assemble(context)
    if (options.signal?.aborted) throw new EngineError('CANCELLED', `assembling ${options.outputPath}: cancelled`)
    if (subtitles && !context.subtitlesCarried()) {
      throw new EngineError('ENCODE_FAILED', `--captions-track: the ${plugin.name} format's assemble builds its own input instead of calling copySegments(), which carries the subtitle track`, {format: plugin.name})
    }
    if (audio && !context.audioCarried()) {
      await muxAudioIntoFile({audio, outputPath: partial, extension: plugin.extension, ffmpegPath: options.ffmpeg.ffmpegPath, signal: options.signal})
    }
    endSpan('assemble', joining)
    // Beside the output before it is counted: a playlist refers to its segments by relative name.
    published = await publishCompanionFiles(plugin, companionDir, options.outputPath)
    const checking = spanStart()
    const frames = await countOutputFrames(plugin, async () => options.ffmpeg.ffprobePath, partial)
    if (frames !== undefined && frames !== expectedFrames) {
      throw new EngineError('ENCODE_FAILED', `assembling ${options.outputPath}: the result has ${frames} frames, expected ${expectedFrames}`, {
        frames,
        expectedFrames,
      })
    }
    await rename(partial, options.outputPath)
    endSpan('output-check', checking)
    await removeStaleCompanions(plugin, options.outputPath, published)
    if (options.plan.captions?.sidecar) await writeCaptionsFile(options.plan, captionsSidecarPath(options.outputPath, false))
  } catch (error) {
    await rm(partial, {force: true})
    // Published companions replaced an earlier output's files of the same names: that output is gone too.
    if (published.length > 0) await removeFiles([...published, options.outputPath])
    throw error
  } finally {
    await rm(scratchDir, {recursive: true, force: true})
  }
}

/** Segments must be in frame order, touching, and cover every frame of the output's range exactly once. */
function assertSegmentsCover(segments: readonly SegmentRef[], range: FrameRange, outputPath: string): void {
  let next = range.start
  for (const segment of segments) {
    if (segment.range.start !== next || segment.range.end <= segment.range.start) {
      throw new EngineError('INTERNAL', `assembling ${outputPath}: segment ${segment.path} covers frames ${segment.range.start}-${segment.range.end - 1}, expected one starting at frame ${next}`, {
        segments,
      })
    }
    next = segment.range.end
  }
  if (next !== range.end) {
    throw new EngineError('INTERNAL', `assembling ${outputPath}: the segments cover frames ${range.start}-${next - 1}, the render has ${describeFrameRange(range)}`, {segments})
  }
}

/** The plugin's view of the assembly, plus whether its `copySegments()` carried the audio. */
function assemblyContext(
  plugin: VideoSegmentFormat | ImageStreamFormat,
  options: AssembleOutputOptions,
  outputPath: string,
  {scratchDir, companionDir}: {scratchDir: string; companionDir: string},
  audio: AssemblyAudio | undefined,
  subtitles: AssemblySubtitles | undefined,
): AssemblyContext & {audioCarried(): boolean; subtitlesCarried(): boolean} {
  const what = `assembling ${options.outputPath} (${plugin.name})`
  let carried = false
  return {
    plan: options.plan,
    segments: options.segments,
    outputPath,
    scratchDir,
    companionDir,
    outputStem: outputStem(options.outputPath),
    ffmpeg: (args, runOptions) =>
      runFfmpeg(options.ffmpeg.ffmpegPath, args, {what, signal: options.signal, stdinFiles: runOptions?.stdinFiles}),
    copySegments: () => {
      carried = true
      return copySegmentsArgs(options.segments, options.plan.fps, join(scratchDir, 'segments.txt'), options.ffmpeg.ffmpegPath, audio, subtitles)
    },
    audioCarried: () => carried && audio !== undefined,
    subtitlesCarried: () => carried,
  }
}

async function assertNotDirectory(outputPath: string, extension: string): Promise<void> {
  const existing = await stat(outputPath).catch(() => undefined)
  if (existing?.isDirectory()) {
    throw new EngineError('INVALID_FLAG', `--output: ${outputPath} is a directory; give a file path such as ${join(outputPath, 'video')}${extension}`, {
      output: outputPath,
    })
  }
}

/** `--captions-track`: the output's cues as a WebVTT file for the format's subtitle codec. */
async function subtitleTrack(plan: Readonly<RenderPlan>, plugin: VideoSegmentFormat | ImageStreamFormat, scratchDir: string): Promise<AssemblySubtitles | undefined> {
  if (!plan.captions?.track || !plugin.subtitleCodec) return undefined
  const vttPath = join(scratchDir, 'captions.vtt')
  await writeCaptionsFile(plan, vttPath)
  return {vttPath, codec: plugin.subtitleCodec}
}
