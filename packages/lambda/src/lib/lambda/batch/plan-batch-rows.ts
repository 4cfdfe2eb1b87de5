import {join} from 'node:path'
import {compileComposition} from 'html-video-engine/internal/lib/compose/compile-composition.js'
import {getFormat} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {renderedFrames} from 'html-video-engine/internal/lib/plan/frame-range.js'
import {planRender} from 'html-video-engine/internal/lib/plan/plan-render.js'
import {resolveRenderOptions} from 'html-video-engine/internal/lib/render/resolve-options.js'
import type {VariableDeclaration} from 'html-video-engine/internal/lib/variables/variable-declaration.js'
import {chunksAtOnce, DEFAULT_MAX_PARALLEL_CHUNKS, planChunks} from '../chunk-plan.js'
import {DEFAULT_ENTRY} from '../deploy-site.js'
import {renderOptionsOf, type RenderConfig} from '../render-input.js'
import type {ChunksPerRender} from './batch-concurrency-warning.js'

export interface BatchRowsPlan {
  /** Type the batch file's CSV cells. */
  declarations: readonly VariableDeclaration[]
  /** Frames of one row's render, when the composition says its length (a root without data-duration says it only when it renders). */
  framesPerRow?: number
  chunks: ChunksPerRender
}

/**
 * What the client knows of every row's render before uploading anything: the composition's
 * declarations and, from its length and the config, one render's frames and the chunks it runs at
 * once. Rows share the template, so one plan speaks for all of them.
 */
export async function planBatchRows(projectDir: string, config: Omit<RenderConfig, 'variables'>, entry = DEFAULT_ENTRY): Promise<BatchRowsPlan> {
  const compiled = await compileComposition(join(projectDir, entry))
  const fallback = {count: config.maxParallelChunks ?? DEFAULT_MAX_PARALLEL_CHUNKS, planned: false}
  if (compiled.durationSeconds === undefined) return {declarations: compiled.declarations, chunks: fallback}
  const sized = {...compiled, width: config.width ?? compiled.width, height: config.height ?? compiled.height, durationSeconds: compiled.durationSeconds}
  const options = resolveRenderOptions(renderOptionsOf(config))
  const {plan} = planRender(sized, options, getFormat(options.format))
  const range = renderedFrames(plan)
  const chunkPlan = planChunks(range, plan.segmentFrames, config)
  return {declarations: compiled.declarations, framesPerRow: range.end - range.start, chunks: {count: chunksAtOnce(chunkPlan), planned: true}}
}
