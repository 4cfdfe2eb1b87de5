import {readdir, rm, stat} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {captionsSidecarPath} from 'html-video-engine/internal/lib/encode/caption-outputs.js'
import {listCompanionFiles} from 'html-video-engine/internal/lib/encode/companion-files.js'
import {contentType} from 'html-video-engine/internal/lib/sandbox/content-type.js'
import {outputExtension, type SegmentRef} from 'html-video-engine/internal/lib/encode/format-plugin.js'
import {getFormat} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {functionFfmpeg} from '../runtime/function-ffmpeg.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {frameTime} from 'html-video-engine/internal/lib/plan/fps.js'
import {renderedFrames} from 'html-video-engine/internal/lib/plan/frame-range.js'
import {assembleRender} from 'html-video-engine/internal/lib/render/assemble-render.js'
import type {AssembleEvent} from '../render-input.js'
import type {RenderOutcome} from '../render-outcome.js'
import {fileSha256} from 'html-video-engine/internal/lib/files/file-sha256.js'
import {storeInBucketCache} from '../bucket-render-cache.js'
import {renderPayload} from 'html-video-engine/internal/lib/notify/index.js'
import type {ChunkManifest, RenderRecord, RenderResultRecord} from '../render-records.js'
import {notifyRenderWebhook} from '../render-webhook.js'
import {BucketObjects} from '../s3-objects.js'
import {chunkManifestKey, chunkName, chunkSegmentPrefix, posterScratchKey, renderRecordKey, renderResultKey, scratchPrefix} from '../storage-keys.js'
import {elapsedMs, type ActionContext} from './action-context.js'
import {readPlan} from './read-plan.js'
import {mapLimited} from '../map-limited.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'
import {readStop, stoppedError} from '../runtime/render-stop.js'
import {outputObjectHeaders, type OutputSettings} from '../output-settings.js'

const DOWNLOAD_CONCURRENCY = 8

/**
 * Downloads every chunk's segments and the audio track and joins them with assembleRender, exactly
 * as a local render joins its workers' (stream copy for video, one encode for GIF, a move for frame
 * files, the track muxed in the same pass), uploads the output at
 * `outputKey`, records the result and deletes the render's scratch objects.
 */
export async function assembleAction(event: AssembleEvent, context: ActionContext): Promise<RenderOutcome> {
  const {renderId} = event
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const stored = await readPlan(bucket, renderId)
  const manifests = await Promise.all(stored.chunks.map((chunk) => readChunkManifest(bucket, renderId, chunk.index)))
  for (const manifest of manifests) {
    if (manifest.planHash !== stored.planHash) {
      throw new EngineError('INTERNAL', `render "${renderId}": chunk ${manifest.index} rendered plan ${manifest.planHash}, not the render's ${stored.planHash}; start the render again`, {
        renderId,
        index: manifest.index,
      })
    }
  }
  const format = getFormat(stored.plan.format)
  const workDir = await makeTempDirectory('assemble')
  try {
    const downloads: {key: string; path: string}[] = []
    const segments: SegmentRef[] = []
    for (const manifest of manifests) {
      const prefix = chunkSegmentPrefix(renderId, manifest.index)
      for (const segment of manifest.segments) {
        const path = join(workDir, chunkName(manifest.index), segment.name)
        const files = segment.files ?? [undefined]
        for (const file of files) downloads.push(file === undefined ? {key: prefix + segment.name, path} : {key: `${prefix}${segment.name}/${file}`, path: join(path, file)})
        segments.push({path, range: {start: segment.start, end: segment.end}})
      }
    }
    const audio = stored.audioKey ? {key: stored.audioKey, path: join(workDir, 'audio.wav')} : undefined
    if (audio) downloads.push(audio)
    await downloadAll(bucket, downloads)

    const ffmpeg = await functionFfmpeg()
    // Under the key's own name: a format's companion files (HLS segments) are named from it.
    const outputPath = join(workDir, 'output', localOutputName(stored.outputKey, outputExtension(format)))
    await assembleRender(stored.plan, segments, {outputPath, audioTrack: audio?.path, ffmpeg})
    await throwIfStopped(bucket, renderId)
    // The output (and its poster) may go to another bucket; the records stay in the render's.
    const settings = stored.output ?? {}
    const outputs = settings.outputBucket ? new BucketObjects(context.s3, settings.outputBucket) : bucket
    // Companion files (HLS segments) and the captions sidecar go beside the output under their own names.
    const beside = [...(await listCompanionFiles(format, outputPath)), ...(stored.plan.captions?.sidecar ? [basename(captionsSidecarPath(outputPath, outputExtension(format) === undefined))] : [])]
    const {bytes, outputKind, keys} = await uploadOutput(outputs, outputPath, stored.outputKey, settings, beside)
    if (stored.poster) {
      const posterPath = join(workDir, basename(stored.poster.key))
      await bucket.downloadFile(posterScratchKey(renderId), posterPath)
      await outputs.uploadFile(stored.poster.key, posterPath, contentType(posterPath), outputObjectHeaders({deleteAfter: settings.deleteAfter}))
      keys.push(stored.poster.key)
    }
    // AWS does not stop an invocation when its execution is stopped: a render cancelled while it
    // was being assembled must not be left with an output.
    await throwIfStopped(bucket, renderId, () => outputs.deleteKeys(keys))
    const range = renderedFrames(stored.plan)
    const totalFrames = range.end - range.start
    const durationSeconds = frameTime(totalFrames, stored.plan.fps)
    const record = await bucket.getJson<RenderRecord>(renderRecordKey(renderId))
    const renderMs = record ? Date.now() - Date.parse(record.plannedAt) + record.plan.durationMs : null
    await notifyRenderWebhook(
      bucket,
      renderId,
      renderPayload({
        id: renderId,
        output: `s3://${outputs.bucketName}/${stored.outputKey}`,
        poster: stored.poster && `s3://${outputs.bucketName}/${stored.poster.key}`,
        durationSeconds,
        renderMs,
      }),
    )

    const result: RenderResultRecord = {
      renderId,
      ...(settings.outputBucket && {outputBucket: settings.outputBucket}),
      outputKey: stored.outputKey,
      outputKind,
      bytes,
      totalFrames,
      ...(stored.poster && {posterKey: stored.poster.key}),
      finishedAt: new Date().toISOString(),
      assemble: {durationMs: elapsedMs(context), memoryMb: context.memoryMb},
      chunks: manifests.map((manifest) => ({...manifest.invocation, browser: manifest.browser})),
      // Every chunk loads the page: an error its script throws at load is in each chunk's list.
      warnings: [...new Map(manifests.flatMap((manifest) => manifest.warnings).map((warning) => [`${warning.code}\n${warning.message}`, warning])).values()],
    }
    await bucket.putJson(renderResultKey(renderId), result)
    // The lifecycle rule would expire the scratch anyway; deleting now keeps the bucket small.
    await bucket.deleteKeys(await bucket.listKeys(scratchPrefix(renderId))).catch(() => {})
    const pageErrors = result.warnings.filter((warning) => warning.code === 'page-error')
    const sha256 = (await fileSha256(outputPath)) ?? null
    // What remote URLs serve may change while the plan stays the same: such an output is not stored;
    // nor one whose page threw (pageErrors "warn"), since a hit would report none of its errors.
    if (stored.cacheKey && sha256 !== null && outputKind === 'file' && !manifests.some((manifest) => manifest.fetchedRemote) && pageErrors.length === 0) {
      await storeInBucketCache(bucket, stored.cacheKey, outputPath, {bytes, sha256, totalFrames, durationSeconds}).catch((error: Error) => {
        console.error(`render ${renderId}: the output could not be stored in the render cache: ${error.message}`)
      })
    }
    return {
      status: 'succeeded',
      outputKey: stored.outputKey,
      outputBucket: settings.outputBucket ?? null,
      bytes,
      totalFrames,
      durationSeconds,
      sha256,
      posterKey: stored.poster?.key ?? null,
      warnings: [...(stored.textWarnings ?? []), ...pageErrors],
      skippedReason: null,
      renderMs,
    }
  } finally {
    await rm(workDir, {recursive: true, force: true})
  }
}

async function readChunkManifest(bucket: BucketObjects, renderId: string, index: number): Promise<ChunkManifest> {
  const manifest = await bucket.getJson<ChunkManifest>(chunkManifestKey(renderId, index))
  if (!manifest) {
    throw new EngineError('INTERNAL', `render "${renderId}": chunk ${index} finished without its manifest (${chunkManifestKey(renderId, index)})`, {renderId, index})
  }
  return manifest
}

async function downloadAll(bucket: BucketObjects, downloads: readonly {key: string; path: string}[]): Promise<void> {
  await mapLimited(downloads, DOWNLOAD_CONCURRENCY, ({key, path}) => bucket.downloadFile(key, path))
}

async function throwIfStopped(bucket: BucketObjects, renderId: string, removeStored?: () => Promise<void>): Promise<void> {
  const stop = await readStop(bucket, renderId)
  if (!stop) return
  await removeStored?.()
  throw stoppedError(renderId, undefined, stop)
}

/** The output key's last part, when it is a usable file name with the format's extension; else `output<ext>`. */
export function localOutputName(outputKey: string, extension: string | undefined): string {
  const name = outputKey.split('/').at(-1) ?? ''
  const usable = extension !== undefined && /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(name) && name.toLowerCase().endsWith(extension)
  return usable ? name : 'output' + (extension ?? '')
}

/**
 * A file goes to `outputKey`, the files beside it (HLS segments, a captions sidecar) beside it
 * under their own names, which a playlist refers to; a frame directory becomes one object per frame under `outputKey/`,
 * tagged like a file output but without a download name (one name would fit none of them).
 */
async function uploadOutput(
  bucket: BucketObjects,
  outputPath: string,
  outputKey: string,
  settings: OutputSettings,
  companions: readonly string[],
): Promise<{bytes: number; outputKind: 'file' | 'prefix'; keys: string[]}> {
  if (!(await stat(outputPath)).isDirectory()) {
    const folder = outputKey.includes('/') ? outputKey.slice(0, outputKey.lastIndexOf('/') + 1) : ''
    let bytes = 0
    const keys: string[] = []
    // Companions first: the playlist names them, so it must not be readable before they are.
    for (const name of companions) {
      bytes += await bucket.uploadFile(folder + name, join(dirname(outputPath), name), contentType(name), outputObjectHeaders({deleteAfter: settings.deleteAfter}))
      keys.push(folder + name)
    }
    bytes += await bucket.uploadFile(outputKey, outputPath, contentType(outputKey), outputObjectHeaders(settings))
    return {bytes, outputKind: 'file', keys: [...keys, outputKey]}
  }
  let bytes = 0
  const prefix = outputKey.replace(/\/+$/, '') + '/'
  const keys: string[] = []
  for (const name of (await readdir(outputPath)).sort()) {
    bytes += await bucket.uploadFile(prefix + name, join(outputPath, name), contentType(name), outputObjectHeaders({deleteAfter: settings.deleteAfter}))
    keys.push(prefix + name)
  }
  // Beside a directory (`frames.vtt` beside `frames`): the key without its slash, then the rest of the name.
  for (const name of companions) {
    const key = prefix.slice(0, -1) + name.slice(basename(outputPath).length)
    bytes += await bucket.uploadFile(key, join(dirname(outputPath), name), contentType(name), outputObjectHeaders({deleteAfter: settings.deleteAfter}))
    keys.push(key)
  }
  return {bytes, outputKind: 'prefix', keys}
}

