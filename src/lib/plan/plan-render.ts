import {EngineError} from '../errors/engine-error.js'
import {basename, dirname, relative, sep} from 'node:path'
import type {CompiledComposition} from '../compose/compile-composition.js'
import {DEFAULT_SEED, runtimeConfig} from '../runtime/runtime-config.js'
import {PAGE_ORIGIN} from '../sandbox/page-origin.js'
import {assertDrawableSize} from './drawable-size.js'
import {assertFormatAccepts, assertFormatSupports, captureImageFormat, clampFpsToFormat, type FormatCapabilities} from './format-capabilities.js'
import {chooseFps, formatFps, frameCount, type FpsSource} from './fps.js'
import {resolveFrameRange} from './frame-range.js'
import {segmentFrames} from './segment-grid.js'
import type {ResolvedRenderOptions} from './render-options.js'
import type {Quality, RenderPlan} from './render-plan.js'

/** Browser JPEG quality per preset: draft trades a little sharpness for capture speed. */
export const JPEG_QUALITY: Record<Quality, number> = {draft: 80, standard: 92, high: 95}

export interface PlanNotice {
  code: 'fps-capped'
  message: string
}

export interface PlannedRender {
  plan: RenderPlan
  notices: PlanNotice[]
  /** Where `plan.fps` came from (kept beside the plan, so that the same rate gives the same plan). */
  fpsSource: FpsSource
}

/**
 * Turns a compiled composition and resolved options into the serialisable RenderPlan. Pure: the
 * same inputs give the same plan on a laptop and on Lambda.
 */
export function planRender(compiled: CompiledComposition, options: ResolvedRenderOptions, format: FormatCapabilities, seed = DEFAULT_SEED): PlannedRender {
  assertDrawableSize(compiled.width, compiled.height)
  assertFormatSupports(format, options)
  const scale = options.scale ?? 1
  assertFormatAccepts(format, outputSize(compiled, scale), scale)
  const notices: PlanNotice[] = []
  const {fps: requested, source: fpsSource} = chooseFps(options.fps, compiled.declaredFps)
  const fps = clampFpsToFormat(format, requested)
  if (fps.num !== requested.num || fps.den !== requested.den) {
    const named = fpsSource === 'composition' ? `data-fps="${formatFps(requested)}" on the root` : `--fps ${formatFps(requested)}`
    notices.push({
      code: 'fps-capped',
      message: `${named}: ${format.name} plays at most ${format.maxFps} frames/s, rendering at ${fps.num}`,
    })
  }
  const imageFormat = captureImageFormat(format)
  if (compiled.durationSeconds === undefined) {
    throw new EngineError(
      'COMPOSITION_INVALID',
      `${compiled.file}: the root has no data-duration, so its length comes from its page's timelines: render it with renderComposition (or write data-duration) before planning`,
      {file: compiled.file},
    )
  }
  const totalFrames = frameCount(compiled.durationSeconds, fps)
  const encode: RenderPlan['encode'] = {
    quality: options.quality as Quality,
    crf: options.crf,
    videoBitrate: options.videoBitrate,
    gifLoop: options.gifLoop,
    gpu: options.gpu,
    ...(options.hlsSegmentSeconds !== undefined && {hlsSegmentSeconds: options.hlsSegmentSeconds}),
  }
  const frameRange = resolveFrameRange(options.frames, {totalFrames, fps})
  const plan: RenderPlan = {
    html: compiled.html,
    baseUrl: pageBaseUrl(compiled.projectDir, compiled.file),
    projectDir: compiled.projectDir,
    network: {publicUrls: options.network !== false, privateAddresses: options.allowPrivateNetwork === true},
    documentName: basename(compiled.file),
    scriptLines: compiled.scriptLines,
    runtime: runtimeConfig(compiled, {fps, seed}),
    ...(options.pageErrors === 'warn' && {pageErrors: 'warn' as const}),
    ...(compiled.readyTimeoutSeconds !== undefined && {readyTimeoutSeconds: compiled.readyTimeoutSeconds}),
    ...(options.videoFrameFormat !== 'auto' && {videoFrameFormat: options.videoFrameFormat}),
    ...(scale !== 1 && {scale}),
    width: compiled.width,
    height: compiled.height,
    fps,
    totalFrames,
    ...(frameRange && {frameRange}),
    // From the composition's length, not the range's: a range is cut on the full render's grid.
    segmentFrames: segmentFrames(fps, totalFrames, options.keyframeInterval ?? format.keyframeInterval?.(encode)),
    format: format.name,
    capture: {imageFormat, jpegQuality: JPEG_QUALITY[options.quality as Quality], transparent: format.alpha},
    encode,
  }
  const captions = captionsOutput(compiled, options, format)
  return {plan: captions ? {...plan, captions} : plan, notices, fpsSource}
}

/** `--captions-sidecar` / `--captions-track`, checked against the composition and the format. */
function captionsOutput(compiled: CompiledComposition, options: ResolvedRenderOptions, format: FormatCapabilities): RenderPlan['captions'] {
  const sidecar = options.captionsSidecar === true
  const track = options.captionsTrack === true
  if (!sidecar && !track) return undefined
  const flag = track ? '--captions-track' : '--captions-sidecar'
  if (!compiled.captions?.length) {
    throw new EngineError('INVALID_FLAG', `${flag}: ${compiled.file} shows no captions; add an element with data-captions="captions.vtt" (or data-captions-var), or drop ${flag}`, {file: compiled.file})
  }
  if (track && !format.subtitleCodec) {
    throw new EngineError('INVALID_FLAG', `--captions-track: the ${format.name} format carries no subtitle track; use mp4, mov or webm, or write the captions beside the output with --captions-sidecar`, {format: format.name})
  }
  return {sidecar, track}
}

/** The URL of the composition's folder on the page origin: its path relative to the project. */
export function pageBaseUrl(projectDir: string, compositionFile: string): string {
  const folder = relative(projectDir, dirname(compositionFile)).split(sep).filter(Boolean)
  return new URL([...folder.map(encodeURIComponent), ''].join('/'), PAGE_ORIGIN + '/').href
}

/**
 * The frames' size in pixels: the composition's size times the scale. Both sides must come out
 * whole, since the browser draws whole device pixels.
 */
export function outputSize(size: {width: number; height: number}, scale: number): {width: number; height: number} {
  const width = size.width * scale
  const height = size.height * scale
  const whole = (value: number) => Math.abs(value - Math.round(value)) < 1e-6
  if (!whole(width) || !whole(height)) {
    throw new EngineError(
      'INVALID_FLAG',
      `--scale ${scale}: ${size.width}x${size.height} becomes ${width}x${height}, which is not a whole number of pixels; choose a scale that gives whole sides (for example ${Math.round(width) / size.width})`,
      {scale, width: size.width, height: size.height},
    )
  }
  return {width: Math.round(width), height: Math.round(height)}
}
