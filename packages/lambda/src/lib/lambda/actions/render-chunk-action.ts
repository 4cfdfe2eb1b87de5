import {execFile} from 'node:child_process'
import {readdir, rm, stat} from 'node:fs/promises'
import {basename, join} from 'node:path'
import {promisify} from 'node:util'
import type {BrowserChoice} from 'html-video-engine/internal/lib/browser/browser-choice.js'
import {functionProfileBrowser} from '../runtime/function-browser.js'
import {functionFfmpeg} from '../runtime/function-ffmpeg.js'
import {stillExtension} from 'html-video-engine/internal/lib/still/still-settings.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {RenderPlan} from 'html-video-engine/internal/lib/plan/render-plan.js'
import {planHash} from 'html-video-engine/internal/lib/render/finalize-plan.js'
import {renderRange} from 'html-video-engine/internal/lib/render/render-range.js'
import {PageErrorWarnings} from 'html-video-engine/internal/lib/render/page-error-warnings.js'
import {gridSegments} from 'html-video-engine/internal/lib/plan/segment-grid.js'
import {assertFontsAsNamed, pageFontFindings} from 'html-video-engine/internal/lib/fonts/font-findings.js'
import type {ReadyReport} from 'html-video-engine/internal/lib/runtime/page-protocol.js'
import {writeImage} from 'html-video-engine/internal/lib/still/write-image.js'
import {browserForPlan} from 'html-video-engine/internal/lib/capture/plan-browser.js'
import {planPageRequests} from 'html-video-engine/internal/lib/capture/plan-page-requests.js'
import {fetchSite} from '../fetch-site.js'
import {siteFontPackages} from '../site-fonts.js'
import type {RenderChunkEvent} from '../render-input.js'
import type {ChunkBrowser, ChunkManifest, StoredPlan, StoredSegment} from '../render-records.js'
import {BucketObjects} from '../s3-objects.js'
import {chunkManifestKey, chunkProgressKey, chunkSegmentPrefix, posterScratchKey} from '../storage-keys.js'
import {ChunkStopWatch} from '../runtime/chunk-stop-watch.js'
import {chunkWorkers, invocationVcpus} from '../runtime/chunk-sizing.js'
import {readStop, stoppedError} from '../runtime/render-stop.js'
import {elapsedMs, type ActionContext} from './action-context.js'
import {ChunkProgressReporter} from './chunk-progress.js'
import {readPlan} from './read-plan.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'

const execFileAsync = promisify(execFile)

/**
 * Renders frames chunk.start..chunk.end-1 of the finished plan with renderRange, as a local render
 * renders its range: the same grid segments, capture workers and segment encoders, so each segment
 * is the file a local render makes for those frames and all of them join by stream copy. Uploads
 * the segments, then the chunk's manifest. A chunk spreads over the function's vCPUs (see
 * chunkWorkers); the segments of all chunks, in order, cover the render exactly once.
 *
 * A chunk stops as soon as its render is stopped (a failure elsewhere, a cancel, the render's
 * deadline): it watches for the stop marker while it captures, looks again before each upload,
 * and once more after its last write; finding it, it deletes everything it stored (see stopRender
 * for why that leaves the scratch empty).
 */
export async function renderChunkAction(event: RenderChunkEvent, context: ActionContext): Promise<{index: number; frames: number}> {
  const {chunk, renderId} = event
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const earlyStop = await readStop(bucket, renderId)
  if (earlyStop) throw stoppedError(renderId, chunk.index, earlyStop)
  const stored = await readPlan(bucket, renderId)
  const watch = await ChunkStopWatch.start(bucket, renderId, chunk.index, stored.deadline)
  const written: string[] = []
  const workDir = await makeTempDirectory('chunk')
  const progress = ChunkProgressReporter.forChunk(bucket, renderId, chunk.index)
  let result: {index: number; frames: number} | undefined
  let failure: unknown
  try {
    result = await renderAndStore(event, stored, context, {bucket, watch, workDir, progress, written})
  } catch (error) {
    failure = watch.reason ?? error
  }
  await Promise.all([watch.close(), progress.close()])
  await rm(workDir, {recursive: true, force: true})
  // After its last write: a chunk of a stopped render removes what it stored, which the sweep
  // that stopped the render may have listed before it landed.
  const stop = await readStop(bucket, renderId).catch(() => undefined)
  if (stop) {
    await bucket.deleteKeys([...new Set([...written, chunkProgressKey(renderId, chunk.index), ...(await bucket.listKeys(chunkSegmentPrefix(renderId, chunk.index)))])])
    throw stoppedError(renderId, chunk.index, stop)
  }
  if (result) return result
  throw failure
}

interface ChunkRun {
  bucket: BucketObjects
  watch: ChunkStopWatch
  workDir: string
  progress: ChunkProgressReporter
  /** Keys this chunk stored, for its clean-up when the render stops. */
  written: string[]
}

async function renderAndStore(event: RenderChunkEvent, stored: StoredPlan, context: ActionContext, run: ChunkRun): Promise<{index: number; frames: number}> {
  const {chunk, renderId} = event
  const {bucket, watch, workDir, progress, written} = run
  const siteDir = await fetchSite(bucket, stored.siteId)
  // The page origin serves this function's copy of the site.
  const plan: RenderPlan = {...stored.plan, projectDir: siteDir}
  if (planHash(plan) !== stored.planHash) {
    throw new EngineError('INTERNAL', `render "${renderId}": the stored plan does not match its hash ${stored.planHash}; start the render again`, {renderId, chunk: chunk.index})
  }
  const requests = planPageRequests(plan)
  // The plan was finished on another invocation: its font files come from the site's packages.
  const [ffmpeg, resolved, fontPackages] = await Promise.all([functionFfmpeg(), functionProfileBrowser(), siteFontPackages(siteDir)])
  const browser = browserForPlan(resolved, plan)
  const browserInfo = await describeBrowser(browser, chunk.index)
  const frames = chunk.end - chunk.start

  let posterImage: Buffer | undefined
  const onFrame = (index: number, image: Buffer) => {
    progress.frameDone()
    // The poster is the very image this frame's encoder got, as in a local render.
    if (index === stored.poster?.frame) posterImage = image
  }
  // Fallbacks only the loaded page shows (a glyph its faces lack) fail a strict render here.
  const onReady = (report: ReadyReport) => {
    if (stored.strictFonts) assertFontsAsNamed(pageFontFindings(report.fonts, {families: [], findings: []}))
  }
  // Under pageErrors "warn" the page's uncaught errors are the chunk's warnings; assemble keeps each once.
  const pageWarnings: ChunkManifest['warnings'] = []
  const pageErrors = new PageErrorWarnings(({code, message, detail}) => pageWarnings.push({code, message, ...(detail && {detail})}))
  const workers = chunkWorkers(gridSegments(chunk, plan.segmentFrames).length, invocationVcpus(context.memoryMb), stored.workersPerChunk)
  const encoded = await renderRange(plan, chunk, {browser, requests, ffmpeg, workDir, workers, fontPackages, onFrame, onReady, onPageErrors: pageErrors.report, signal: watch.signal}).finally(() => progress.settle())
  const upload = async (key: string, path: string) => {
    await watch.check()
    written.push(key)
    await bucket.uploadFile(key, path)
  }
  if (stored.poster && posterImage) {
    const path = join(workDir, `poster${stillExtension(stored.poster.format)}`)
    await writeImage({image: posterImage, captured: plan.capture.imageFormat, output: path, format: stored.poster.format, quality: plan.capture.jpegQuality, ffmpegPath: ffmpeg.ffmpegPath, workDir})
    await upload(posterScratchKey(renderId), path)
  }
  const prefix = chunkSegmentPrefix(renderId, chunk.index)
  const uploaded: StoredSegment[] = []
  for (const segment of encoded) {
    const name = basename(segment.path)
    if ((await stat(segment.path)).isDirectory()) {
      const files = (await readdir(segment.path)).sort()
      for (const file of files) await upload(`${prefix}${name}/${file}`, join(segment.path, file))
      uploaded.push({name, files, ...segment.range})
    } else {
      await upload(prefix + name, segment.path)
      uploaded.push({name, ...segment.range})
    }
  }
  const manifest: ChunkManifest = {
    ...chunk,
    segments: uploaded,
    finishedAt: new Date().toISOString(),
    invocation: {durationMs: elapsedMs(context), memoryMb: context.memoryMb},
    browser: browserInfo.browser,
    planHash: stored.planHash,
    warnings: [...browserInfo.warnings, ...pageWarnings],
    ...(requests.fetchedUrls.length > 0 && {fetchedRemote: true}),
  }
  await watch.check()
  written.push(chunkManifestKey(renderId, chunk.index))
  await bucket.putJson(chunkManifestKey(renderId, chunk.index), manifest)
  return {index: chunk.index, frames}
}

/**
 * The browser's version and capture mode for the chunk's record. A browser without begin-frame
 * still renders, through screenshots: slower, and animations are sampled by wall clock between
 * seeks, so the render says so.
 */
async function describeBrowser(browser: BrowserChoice, index: number): Promise<{browser: ChunkBrowser; warnings: {code: string; message: string}[]}> {
  // A probed browser (Lambda's) knows its version; asking a binary for it costs no launch.
  const reported = browser.version ?? (await execFileAsync(browser.executablePath, ['--version'], {timeout: 10_000}).then((result) => result.stdout, () => ''))
  const version = /\d+\.\d+\.\d+\.\d+/.exec(reported)?.[0] ?? 'unknown'
  const capture = browser.beginFrame ? 'begin-frame' : 'screenshot'
  const warnings = browser.beginFrame
    ? []
    : [{code: 'begin-frame-unavailable', message: `chunk ${index}: Chromium ${version} (${browser.source}) has no begin-frame control; its frames were captured with screenshots, which is slower`}]
  return {browser: {version, source: browser.source, capture}, warnings}
}
