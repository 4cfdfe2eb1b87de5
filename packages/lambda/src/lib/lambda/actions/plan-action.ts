import {rm} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {functionProfileBrowser} from '../runtime/function-browser.js'
import {compileComposition} from 'html-video-engine/internal/lib/compose/compile-composition.js'
import {getFormat} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {functionFfmpeg} from '../runtime/function-ffmpeg.js'
import {formatFps} from 'html-video-engine/internal/lib/plan/fps.js'
import {renderedFrames} from 'html-video-engine/internal/lib/plan/frame-range.js'
import {outputSize, planRender} from 'html-video-engine/internal/lib/plan/plan-render.js'
import {resolveRenderOptions} from 'html-video-engine/internal/lib/render/resolve-options.js'
import {timeComposition} from 'html-video-engine/internal/lib/render/time-composition.js'
import {mixRenderAudio} from 'html-video-engine/internal/lib/render/assemble-render.js'
import {finalizePlan, type FinishedPlan} from 'html-video-engine/internal/lib/render/finalize-plan.js'
import {browserForPlan} from 'html-video-engine/internal/lib/capture/plan-browser.js'
import {chunksAtOnce, planChunks, throttledChunksWarning} from '../chunk-plan.js'
import {fetchSite, siteEntryPath} from '../fetch-site.js'
import {renderOptionsOf, type PlanEvent, type PlanOutput, type RenderConfig} from '../render-input.js'
import type {RenderPlan} from 'html-video-engine/internal/lib/plan/render-plan.js'
import type {RenderRecord, StoredPlan} from '../render-records.js'
import {BucketObjects} from '../s3-objects.js'
import {readStackRecord} from '../stack-record.js'
import {audioTrackKey, planKey, renderRecordKey} from '../storage-keys.js'
import {checkConfig, checkOutputKey} from '../validate-config.js'
import {assertOutputFree} from '../output-taken.js'
import {outputExtension} from 'html-video-engine/internal/lib/encode/format-plugin.js'
import {assertWithinWorkflowBudget, chunkFanOut} from '../workflow-limits.js'
import {outputSettingsOf} from '../output-settings.js'
import {elapsedMs, type ActionContext} from './action-context.js'
import {siteFontPackages} from '../site-fonts.js'
import {planPageRequests} from 'html-video-engine/internal/lib/capture/plan-page-requests.js'
import {assertFontsAsNamed} from 'html-video-engine/internal/lib/fonts/font-findings.js'
import {DEFAULT_POSTER_FORMAT, posterFrame, posterPath} from 'html-video-engine/internal/lib/still/poster.js'
import type {StillFormat} from 'html-video-engine/internal/lib/still/still-settings.js'
import {assertResourcesLoadable} from 'html-video-engine/internal/lib/render/check-page-resources.js'
import {assertImageValues} from 'html-video-engine/internal/lib/variables/image-values.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'
import {chunkTuningFor, idleCpuWarning, invocationVcpus} from '../runtime/chunk-sizing.js'
import {defaultTimeoutSeconds, renderDeadline} from '../runtime/render-timeout.js'
import {skippedOutcome} from '../render-outcome.js'
import {planTextCheck} from './plan-text-check.js'
import {bucketCacheApplies, bucketCacheKey} from '../bucket-render-cache.js'
import {outputFromCache} from './plan-cache-hit.js'

/**
 * Compiles the composition once, plans the render and its chunks, and stores the plan for the
 * chunks. Returns only what the workflow needs to fan out: the chunk ranges and the concurrency.
 */
export async function planAction({render, executionStartedAt}: PlanEvent, context: ActionContext): Promise<PlanOutput> {
  const {config} = render
  checkConfig(config)
  checkOutputKey(render)
  const bucket = new BucketObjects(context.s3, render.bucketName)
  const outputs = config.outputBucket ? new BucketObjects(context.s3, config.outputBucket) : bucket
  await assertOutputFree(outputs, render.outputKey, {overwrite: config.overwrite, sequence: outputExtension(getFormat(config.format ?? 'mp4')) === undefined})
  const siteDir = await fetchSite(bucket, render.siteId)
  const compiled = await compileComposition(await siteEntryPath(siteDir, render.siteId, render.entry), {variables: config.variables, projectDir: siteDir, fontPackages: await siteFontPackages(siteDir)})
  if (config.strictFonts) assertFontsAsNamed(compiled.fonts.findings)
  // The site is the project: an image variable names a file in it, or a public URL.
  const network = {publicUrls: true, privateAddresses: false}
  assertResourcesLoadable(compiled, network)
  await assertImageValues(compiled.declarations, compiled.variables, {projectDir: siteDir, pageDir: dirname(compiled.file), network})
  const sized = {...compiled, width: config.width ?? compiled.width, height: config.height ?? compiled.height}
  // A serverless render never reaches private addresses (they would be the cloud's own).
  const options = resolveRenderOptions({...renderOptionsOf(config), allowPrivateNetwork: false})
  const format = getFormat(options.format)
  const inferred: {code: string; message: string}[] = []
  const timed =
    sized.durationSeconds === undefined
      ? await timeComposition(sized, {options, format, browser: await functionProfileBrowser(), strict: false, warn: (warning) => inferred.push(warning)})
      : {...sized, durationSeconds: sized.durationSeconds}
  const {plan: planned, notices, fpsSource} = planRender(timed, options, format)
  const checked = await planTextCheck(planned, config, render.renderId)
  if (checked?.error) throw checked.error
  if (checked?.skippedReason !== undefined) {
    return {totalFrames: 0, chunks: [], maxParallelChunks: 1, distributed: false, ended: skippedOutcome(render.outputKey, checked.warnings, checked.skippedReason, elapsedMs(context))}
  }
  const poster = config.poster === undefined ? undefined : posterOf(config.poster, config.posterFormat ?? DEFAULT_POSTER_FORMAT, planned, render.outputKey)
  const range = renderedFrames(planned)
  // The plan step runs on the function the chunks run on: its vCPUs are theirs.
  const vcpus = invocationVcpus(context.memoryMb)
  const workersPerChunk = config.concurrencyPerChunk ?? vcpus
  const chosenSize = config.chunkSize !== undefined || config.targetChunkFrames !== undefined
  const chunkPlan = planChunks(range, planned.segmentFrames, chunkTuningFor(config, planned.segmentFrames, workersPerChunk))
  const chunks = chunkPlan.chunks.map((chunk, index) => ({index, ...chunk}))
  const parallel = chunkFanOut(chunks.length, chunkPlan.maxParallelChunks)
  const idle =
    chosenSize && config.concurrencyPerChunk === undefined && chunks.length > 1
      ? idleCpuWarning(Math.ceil((chunks[0]!.end - chunks[0]!.start) / planned.segmentFrames), vcpus, planned.segmentFrames)
      : undefined
  const timeoutSeconds = config.timeoutSeconds ?? defaultTimeoutSeconds(chunks.length, parallel.maxParallelChunks)
  const deadline = renderDeadline(executionStartedAt, timeoutSeconds)
  const totalFrames = range.end - range.start
  const output: PlanOutput = {totalFrames, chunks, maxParallelChunks: parallel.maxParallelChunks, distributed: parallel.distributed}
  // The state after this step is the execution input with the plan's output at $.plan.
  assertWithinWorkflowBudget(chunks.length, Buffer.byteLength(JSON.stringify({...render, plan: output}), 'utf8'))

  const [finishing, stack] = await Promise.all([finishOnce(planned, bucket, render.renderId), readStackRecord(bucket)])
  const {plan} = finishing.finished
  const cacheKey = bucketCacheApplies(config, format, plan) ? await bucketCacheKey(plan, await functionProfileBrowser(), await functionFfmpeg(), format) : undefined
  const throttled = throttledChunksWarning(chunksAtOnce({...chunkPlan, maxParallelChunks: parallel.maxParallelChunks}), stack ?? {})

  const stored: StoredPlan = {
    renderId: render.renderId,
    siteId: render.siteId,
    entry: render.entry,
    outputKey: render.outputKey,
    plan,
    planHash: finishing.finished.hash,
    chunks,
    audioKey: finishing.audioKey,
    ...(poster && {poster}),
    ...(config.strictFonts && {strictFonts: true}),
    deadline,
    workersPerChunk,
    ...(outputSettingsOf(config) && {output: outputSettingsOf(config)}),
    ...(checked && checked.warnings.length > 0 && {textWarnings: checked.warnings}),
    ...(cacheKey && {cacheKey}),
  }
  await bucket.putJson(planKey(render.renderId), stored)
  const record: RenderRecord = {
    renderId: render.renderId,
    siteId: render.siteId,
    outputKey: render.outputKey,
    format: plan.format,
    ...outputSize(plan, plan.scale ?? 1),
    fps: formatFps(plan.fps),
    fpsSource,
    totalFrames,
    chunks,
    maxParallelChunks: parallel.maxParallelChunks,
    chunkMode: chunkPlan.mode,
    workersPerChunk,
    timeoutSeconds,
    deadline,
    warnings: [
      ...(checked?.warnings ?? []),
      ...inferred,
      ...notices,
      ...compiled.findings.map((finding) => ({code: finding.code, message: finding.message})),
      ...compiled.notices,
      ...compiled.fonts.findings,
      ...finishing.warnings,
      ...(parallel.warning ? [parallel.warning] : []),
      ...(throttled ? [throttled] : []),
      ...(idle ? [idle] : []),
    ],
    plannedAt: new Date().toISOString(),
    plan: {durationMs: elapsedMs(context), memoryMb: context.memoryMb},
  }
  await bucket.putJson(renderRecordKey(render.renderId), record)
  const cached = cacheKey === undefined ? undefined : await outputFromCache({bucket, outputs, stored, record, cacheKey, context})
  return cached ? {...output, ended: cached} : output
}

/**
 * Finishes the plan (media probed, frames extracted, clips timed) and mixes its audio, once per
 * render, into the render's scratch; each chunk renders the finished plan and assemble muxes the
 * track. HDR sources render SDR here: distributed renders write SDR only.
 */
async function finishOnce(planned: RenderPlan, bucket: BucketObjects, renderId: string): Promise<{finished: FinishedPlan; audioKey: string | null; warnings: {code: string; message: string}[]}> {
  const workDir = await makeTempDirectory('plan')
  try {
    const [ffmpeg, browser] = await Promise.all([functionFfmpeg(), functionProfileBrowser()])
    const warnings: {code: string; message: string}[] = []
    const requests = planPageRequests(planned, {onNotice: ({code, message}) => warnings.push({code, message})})
    const finished = await finalizePlan(planned, {browser: browserForPlan(browser, planned), ffmpeg, requests, workDir, dynamicRange: {hdr: false, sdr: true}})
    warnings.push(...finished.warnings)
    if (finished.hdrSources) {
      warnings.push({
        code: 'hdr-sources-rendered-sdr',
        message: `the composition has ${finished.hdrSources.toUpperCase()} HDR sources but distributed renders are SDR: their frames are tone-mapped; render locally for HDR mp4`,
      })
    }
    const trackPath = join(workDir, 'audio.wav')
    if (!(await mixRenderAudio(finished, trackPath, ffmpeg.ffmpegPath))) return {finished, audioKey: null, warnings}
    await bucket.uploadFile(audioTrackKey(renderId), trackPath, 'audio/wav')
    return {finished, audioKey: audioTrackKey(renderId), warnings}
  } finally {
    await rm(workDir, {recursive: true, force: true})
  }
}

/** The poster's frame (one the render captures, or an INVALID_FLAG error) and its key beside the output. */
function posterOf(seconds: number, format: StillFormat, plan: RenderPlan, outputKey: string): NonNullable<StoredPlan['poster']> {
  return {frame: posterFrame(seconds, plan), format, key: posterPath(outputKey, getFormat(plan.format), format)}
}

