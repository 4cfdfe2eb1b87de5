import {compileComposition} from '../compose/compile-composition.js'
import {toEngineError} from '../errors/engine-error.js'
import {lintComposition} from '../lint/lint-composition.js'
import {DEFAULT_FPS, frameCount, type Fps} from '../plan/fps.js'
import {previewFps} from './composition-document.js'
import {listCaptionFiles} from './caption-files.js'
import {dirname} from 'node:path'
import type {PreviewState} from './client/preview-protocol.js'

export interface PreviewTarget {
  /** The composition as the user named it (lint findings and messages use it). */
  file: string
  documentPath: string
  /** `--fps` or the config file's; absent: the root's data-fps, else 30. */
  fps?: Fps
}

/** Reads the composition as it is on disk now: its size, duration and declarations, and lint findings. */
export async function loadPreviewState(target: PreviewTarget, revision: number): Promise<PreviewState> {
  const state: PreviewState = {documentPath: target.documentPath, revision, fps: target.fps ?? DEFAULT_FPS, fpsSource: target.fps ? 'flag' : 'default', lint: []}
  const [compiled, lint] = await Promise.allSettled([compileComposition(target.file), lintComposition(target.file)])
  if (lint.status === 'fulfilled') state.lint = lint.value
  if (compiled.status === 'rejected') {
    state.error = toEngineError(compiled.reason).toJSON()
    return state
  }
  const {compositionId, width, height, durationSeconds, declarations, declaredFps, captions, file} = compiled.value
  try {
    const chosen = previewFps(target.fps, declaredFps)
    Object.assign(state, {fps: chosen.fps, fpsSource: chosen.source})
  } catch (error) {
    state.error = toEngineError(error).toJSON()
    return state
  }
  const timing = durationSeconds === undefined ? {} : {durationSeconds, totalFrames: frameCount(durationSeconds, state.fps)}
  const captionVariables = [...new Set((captions ?? []).flatMap((shown) => (shown.variable === undefined ? [] : [shown.variable])))]
  const captionFiles = captionVariables.length > 0 ? await listCaptionFiles(dirname(file)) : []
  state.composition = {compositionId, width, height, ...timing, declarations, captionVariables, captionFiles}
  return state
}
