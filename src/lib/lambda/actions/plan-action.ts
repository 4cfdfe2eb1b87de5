import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {resolveBrowser} from '../../browser/resolve-browser.js'
import {compileComposition} from '../../compose/compile-composition.js'
import {getFormat} from '../../encode/format-registry.js'
import {resolveFfmpeg} from '../../encode/resolve-ffmpeg.js'
import {clipsFrom} from '../../media/clips-from.js'
import {mixAudioTrack} from '../../media/mix-audio-track.js'
import {formatFps, frameTime} from '../../plan/fps.js'
import {renderedFrames} from '../../plan/frame-range.js'
import {outputSize, planRender} from '../../plan/plan-render.js'
import {resolveRenderOptions} from '../../render/resolve-options.js'
import {chunksAtOnce, planChunks, throttledChunksWarning} from '../chunk-plan.js'
import {fetchSite} from '../fetch-site.js'
import type {PlanEvent, PlanOutput, RenderConfig} from '../render-input.js'
import type {RenderPlan} from '../../plan/render-plan.js'
import type {RenderRecord, StoredPlan} from '../render-records.js'
import {BucketObjects} from '../s3-objects.js'
import {readStackRecord} from '../stack-record.js'
import {audioTrackKey, planKey, renderRecordKey} from '../storage-keys.js'
import {checkConfig} from '../validate-config.js'
import {assertWithinWorkflowBudget, clampParallelChunks} from '../workflow-limits.js'
import {elapsedMs, type ActionContext} from './action-context.js'
import {prepareSiteMedia} from './render-media.js'
import {siteFontPackages} from '../site-fonts.js'
import {planPageRequests} from '../../capture/plan-page-requests.js'
import {assertNoFontFallbacks} from '../../fonts/font-findings.js'
import {DEFAULT_POSTER_FORMAT, posterFrame, posterPath} from '../../still/poster.js'
import type {StillFormat} from '../../still/still-settings.js'

/**
 * Compiles the composition once, plans the render and its chunks, and stores the plan for the
 * chunks. Returns only what the workflow needs to fan out: the chunk ranges and the concurrency.
 */
export async function planAction({render}: PlanEvent, context: ActionContext): Promise<PlanOutput> {
  const {config} = render
  checkConfig(config)
  const bucket = new BucketObjects(context.s3, render.bucketName)
  const siteDir = await fetchSite(bucket, render.siteId)
  const compiled = await compileComposition(join(siteDir, render.entry), {variables: config.variables, projectDir: siteDir, fontPackages: await siteFontPackages(siteDir)})
  if (config.strictFonts) assertNoFontFallbacks(compiled.fonts.findings)
  const sized = {...compiled, width: config.width ?? compiled.width, height: config.height ?? compiled.height}
  const options = resolveRenderOptions(renderOptionsOf(config))
  const {plan, notices} = planRender(sized, options, getFormat(options.format))
  // A serverless render never reaches private addresses (they would be the cloud's own).
  plan.network = {...plan.network, privateAddresses: false}
  const poster = config.poster === undefined ? undefined : posterOf(config.poster, config.posterFormat ?? DEFAULT_POSTER_FORMAT, plan, render.outputKey)
  const range = renderedFrames(plan)
  const chunkPlan = planChunks(range, plan.segmentFrames, config)
  const chunks = chunkPlan.chunks.map((chunk, index) => ({index, ...chunk}))
  const parallel = clampParallelChunks(chunkPlan.maxParallelChunks)
  const totalFrames = range.end - range.start
  const output: PlanOutput = {totalFrames, chunks, maxParallelChunks: parallel.maxParallelChunks}
  // The state after this step is the execution input with the plan's output at $.plan.
  assertWithinWorkflowBudget(chunks.length, Buffer.byteLength(JSON.stringify({...render, plan: output}), 'utf8'))

  const [media, stack] = await Promise.all([mixAudioOnce(plan, bucket, render.renderId), readStackRecord(bucket)])
  const throttled = throttledChunksWarning(chunksAtOnce({...chunkPlan, maxParallelChunks: parallel.maxParallelChunks}), stack ?? {})

  const stored: StoredPlan = {
    renderId: render.renderId,
    siteId: render.siteId,
    entry: render.entry,
    outputKey: render.outputKey,
    plan,
    chunks,
    audioKey: media.audioKey,
    ...(poster && {poster}),
    ...(config.strictFonts && {strictFonts: true}),
  }
  await bucket.putJson(planKey(render.renderId), stored)
  const record: RenderRecord = {
    renderId: render.renderId,
    siteId: render.siteId,
    outputKey: render.outputKey,
    format: plan.format,
    ...outputSize(plan, plan.scale ?? 1),
    fps: formatFps(plan.fps),
    totalFrames,
    chunks,
    maxParallelChunks: parallel.maxParallelChunks,
    chunkMode: chunkPlan.mode,
    warnings: [
      ...notices,
      ...compiled.findings.map((finding) => ({code: finding.code, message: finding.message})),
      ...compiled.fonts.findings,
      ...media.warnings,
      ...(parallel.warning ? [parallel.warning] : []),
      ...(throttled ? [throttled] : []),
    ],
    plannedAt: new Date().toISOString(),
    plan: {durationMs: elapsedMs(context), memoryMb: context.memoryMb},
  }
  await bucket.putJson(renderRecordKey(render.renderId), record)
  return output
}

/**
 * Probes the composition's media and mixes its audio, once per render, into the render's scratch;
 * assemble muxes it. HDR sources render SDR here: distributed renders write SDR only.
 */
async function mixAudioOnce(plan: RenderPlan, bucket: BucketObjects, renderId: string): Promise<{audioKey: string | null; warnings: {code: string; message: string}[]}> {
  const workDir = await mkdtemp(join(tmpdir(), 'engine-plan-'))
  try {
    const [ffmpeg, browser] = await Promise.all([resolveFfmpeg(), resolveBrowser({browserGpu: false})])
    const warnings: {code: string; message: string}[] = []
    const requests = planPageRequests(plan, {onNotice: ({code, message}) => warnings.push({code, message})})
    const media = await prepareSiteMedia(plan, browser, ffmpeg, workDir, requests)
    warnings.push(...media.warnings)
    if (media.hdrTransfer) {
      warnings.push({
        code: 'hdr-sources-rendered-sdr',
        message: `the composition has ${media.hdrTransfer.toUpperCase()} HDR sources but distributed renders are SDR: their frames are tone-mapped; render locally for HDR mp4`,
      })
    }
    const trackPath = join(workDir, 'audio.wav')
    // As in a local render: a `frames` range gets the full track from its first frame on.
    const range = renderedFrames(plan)
    const clips = clipsFrom(media.clips, frameTime(range.start, plan.fps))
    const durationSeconds = frameTime(range.end - range.start, plan.fps)
    if (!(await mixAudioTrack({clips, durationSeconds, outputPath: trackPath, ffmpegPath: ffmpeg.ffmpegPath}))) return {audioKey: null, warnings}
    await bucket.uploadFile(audioTrackKey(renderId), trackPath, 'audio/wav')
    return {audioKey: audioTrackKey(renderId), warnings}
  } finally {
    await rm(workDir, {recursive: true, force: true})
  }
}

/** The poster's frame (one the render captures, or an INVALID_FLAG error) and its key beside the output. */
function posterOf(seconds: number, format: StillFormat, plan: RenderPlan, outputKey: string): NonNullable<StoredPlan['poster']> {
  return {frame: posterFrame(seconds, plan), format, key: posterPath(outputKey, getFormat(plan.format), format)}
}

function renderOptionsOf(config: RenderConfig) {
  const {format, fps, quality, crf, videoBitrate, keyframeInterval, gifLoop, frames, scale} = config
  return {format, fps, quality, crf, videoBitrate, keyframeInterval, gifLoop, frames, scale}
}
