import {pathToFileURL} from 'node:url'
import {basename, dirname} from 'node:path'
import type {CompiledComposition} from '../compose/compile-composition.js'
import {assertFormatAccepts, clampFpsToFormat} from '../encode/format-constraints.js'
import {captureImageFormat, type FormatPlugin} from '../encode/format-plugin.js'
import {DEFAULT_SEED, runtimeConfig} from '../runtime/runtime-config.js'
import {frameCount, parseFps, type Fps} from './fps.js'
import type {ResolvedRenderOptions} from './resolve-options.js'
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
}

/**
 * Turns a compiled composition and resolved options into the serialisable RenderPlan. Pure: the
 * same inputs give the same plan on a laptop and on Lambda.
 */
export function planRender(compiled: CompiledComposition, options: ResolvedRenderOptions, format: FormatPlugin, seed = DEFAULT_SEED): PlannedRender {
  assertFormatAccepts(format, compiled)
  const notices: PlanNotice[] = []
  const requested: Fps = parseFps(options.fps)
  const fps = clampFpsToFormat(format, requested)
  if (fps.num !== requested.num || fps.den !== requested.den) {
    notices.push({
      code: 'fps-capped',
      message: `--fps ${options.fps}: ${format.name} plays at most ${format.maxFps} frames/s, rendering at ${fps.num}`,
    })
  }
  const imageFormat = captureImageFormat(format)
  const plan: RenderPlan = {
    html: compiled.html,
    baseUrl: pathToFileURL(dirname(compiled.file) + '/').href,
    documentName: basename(compiled.file),
    scriptLines: compiled.scriptLines,
    runtime: runtimeConfig(compiled, {fps, seed}),
    width: compiled.width,
    height: compiled.height,
    fps,
    totalFrames: frameCount(compiled.durationSeconds, fps),
    format: format.name,
    capture: {imageFormat, jpegQuality: JPEG_QUALITY[options.quality as Quality], transparent: format.alpha},
    encode: {
      quality: options.quality as Quality,
      crf: options.crf,
      videoBitrate: options.videoBitrate,
      gifLoop: options.gifLoop,
      gpu: options.gpu,
    },
  }
  return {plan, notices}
}
