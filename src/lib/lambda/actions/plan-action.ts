import {join} from 'node:path'
import {compileComposition} from '../../compose/compile-composition.js'
import {getFormat} from '../../encode/format-registry.js'
import {formatFps} from '../../plan/fps.js'
import {planRender} from '../../plan/plan-render.js'
import {resolveRenderOptions} from '../../plan/resolve-options.js'
import {planChunks} from '../chunk-plan.js'
import {fetchSite} from '../fetch-site.js'
import type {PlanEvent, PlanOutput, RenderConfig} from '../render-input.js'
import type {RenderRecord, StoredPlan} from '../render-records.js'
import {BucketObjects} from '../s3-objects.js'
import {planKey, renderRecordKey} from '../storage-keys.js'
import {checkConfig} from '../validate-config.js'
import {elapsedMs, type ActionContext} from './action-context.js'

/**
 * Compiles the composition once, plans the render and its chunks, and stores the plan for the
 * chunks. Returns only what the workflow needs to fan out: the chunk ranges and the concurrency.
 */
export async function planAction({render}: PlanEvent, context: ActionContext): Promise<PlanOutput> {
  const {config} = render
  checkConfig(config)
  const bucket = new BucketObjects(context.s3, render.bucketName)
  const siteDir = await fetchSite(bucket, render.siteId)
  const compiled = await compileComposition(join(siteDir, render.entry), {variables: config.variables})
  const sized = {...compiled, width: config.width ?? compiled.width, height: config.height ?? compiled.height}
  const options = resolveRenderOptions(renderOptionsOf(config))
  const {plan, notices} = planRender(sized, options, getFormat(options.format))
  const chunkPlan = planChunks(plan.totalFrames, config)
  const chunks = chunkPlan.chunks.map((range, index) => ({index, ...range}))

  const stored: StoredPlan = {renderId: render.renderId, siteId: render.siteId, entry: render.entry, outputKey: render.outputKey, plan, chunks, audioKey: null}
  await bucket.putJson(planKey(render.renderId), stored)
  const record: RenderRecord = {
    renderId: render.renderId,
    siteId: render.siteId,
    outputKey: render.outputKey,
    format: plan.format,
    width: plan.width,
    height: plan.height,
    fps: formatFps(plan.fps),
    totalFrames: plan.totalFrames,
    chunks,
    maxParallelChunks: chunkPlan.maxParallelChunks,
    chunkMode: chunkPlan.mode,
    warnings: [...notices, ...compiled.findings.map((finding) => ({code: finding.code, message: finding.message}))],
    plannedAt: new Date().toISOString(),
    plan: {durationMs: elapsedMs(context), memoryMb: context.memoryMb},
  }
  await bucket.putJson(renderRecordKey(render.renderId), record)
  return {totalFrames: plan.totalFrames, chunks, maxParallelChunks: chunkPlan.maxParallelChunks}
}

function renderOptionsOf(config: RenderConfig) {
  const {format, fps, quality, crf, videoBitrate, gifLoop} = config
  return {format, fps, quality, crf, videoBitrate, gifLoop}
}
