import {mkdtemp, readdir, rm, stat} from 'node:fs/promises'
import {availableParallelism, tmpdir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {resolveBrowser} from '../../browser/resolve-browser.js'
import {resolveFfmpeg} from '../../encode/resolve-ffmpeg.js'
import type {FrameRange} from '../../plan/render-plan.js'
import {splitFrames, workerCount} from '../../plan/worker-count.js'
import {captureSegments} from '../../render/capture-segments.js'
import {fetchSite} from '../fetch-site.js'
import type {RenderChunkEvent} from '../render-input.js'
import type {ChunkManifest, StoredSegment} from '../render-records.js'
import {BucketObjects} from '../s3-objects.js'
import {chunkManifestKey, chunkSegmentPrefix} from '../storage-keys.js'
import {elapsedMs, type ActionContext} from './action-context.js'
import {ChunkProgressReporter} from './chunk-progress.js'
import {readPlan} from './read-plan.js'
import {prepareSiteMedia} from './render-media.js'

/**
 * Renders frames chunk.start..chunk.end-1 with the local engine (the same capture workers and
 * segment encoders, so every segment starts on a keyframe and joins by stream copy), uploads the
 * segments, then the chunk's manifest. A chunk spreads over the function's cores like a local
 * render does; the segments of all chunks, in order, cover the render exactly once.
 */
export async function renderChunkAction(event: RenderChunkEvent, context: ActionContext): Promise<{index: number; frames: number}> {
  const {chunk, renderId} = event
  const bucket = new BucketObjects(context.s3, event.bucketName)
  const stored = await readPlan(bucket, renderId)
  const siteDir = await fetchSite(bucket, stored.siteId)
  const plan = {...stored.plan, baseUrl: pathToFileURL(dirname(join(siteDir, stored.entry)) + '/').href}
  const [ffmpeg, browser] = await Promise.all([resolveFfmpeg(), resolveBrowser({browserGpu: false})])
  const frames = chunk.end - chunk.start
  const ranges: FrameRange[] = splitFrames(frames, workerCount('auto', availableParallelism(), frames)).map((range) => ({
    start: chunk.start + range.start,
    end: chunk.start + range.end,
  }))

  const workDir = await mkdtemp(join(tmpdir(), 'engine-chunk-'))
  try {
    plan.runtime.media = (await prepareSiteMedia(plan, browser, ffmpeg, workDir)).runtime
    const progress = ChunkProgressReporter.forChunk(bucket, renderId, chunk.index)
    const segments = await captureSegments({plan, ranges, browser, ffmpeg, workDir, onFrame: () => progress.frameDone()}).finally(() => progress.settle())
    const prefix = chunkSegmentPrefix(renderId, chunk.index)
    const uploaded: StoredSegment[] = []
    for (const segment of segments) {
      const name = basename(segment.path)
      if ((await stat(segment.path)).isDirectory()) {
        const files = (await readdir(segment.path)).sort()
        for (const file of files) await bucket.uploadFile(`${prefix}${name}/${file}`, join(segment.path, file))
        uploaded.push({name, files, ...segment.range})
      } else {
        await bucket.uploadFile(prefix + name, segment.path)
        uploaded.push({name, ...segment.range})
      }
    }
    const manifest: ChunkManifest = {
      ...chunk,
      segments: uploaded,
      finishedAt: new Date().toISOString(),
      invocation: {durationMs: elapsedMs(context), memoryMb: context.memoryMb},
    }
    await bucket.putJson(chunkManifestKey(renderId, chunk.index), manifest)
    return {index: chunk.index, frames}
  } finally {
    await rm(workDir, {recursive: true, force: true})
  }
}
