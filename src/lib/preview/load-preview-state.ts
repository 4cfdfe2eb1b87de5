import {compileComposition} from '../compose/compile-composition.js'
import {toEngineError} from '../errors/engine-error.js'
import {lintComposition} from '../lint/lint-composition.js'
import {frameCount, type Fps} from '../plan/fps.js'
import type {PreviewState} from './client/preview-protocol.js'

export interface PreviewTarget {
  /** The composition as the user named it (lint findings and messages use it). */
  file: string
  documentPath: string
  fps: Fps
}

/** Reads the composition as it is on disk now: its size, duration and declarations, and lint findings. */
export async function loadPreviewState(target: PreviewTarget, revision: number): Promise<PreviewState> {
  const state: PreviewState = {documentPath: target.documentPath, revision, fps: target.fps, lint: []}
  const [compiled, lint] = await Promise.allSettled([compileComposition(target.file), lintComposition(target.file)])
  if (lint.status === 'fulfilled') state.lint = lint.value
  if (compiled.status === 'rejected') {
    state.error = toEngineError(compiled.reason).toJSON()
    return state
  }
  const {compositionId, width, height, durationSeconds, declarations} = compiled.value
  const timing = durationSeconds === undefined ? {} : {durationSeconds, totalFrames: frameCount(durationSeconds, target.fps)}
  state.composition = {compositionId, width, height, ...timing, declarations}
  return state
}
