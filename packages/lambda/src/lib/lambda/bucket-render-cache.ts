import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import type {BrowserChoice} from 'html-video-engine/internal/lib/browser/browser-choice.js'
import type {FormatPlugin} from 'html-video-engine/internal/lib/encode/format-plugin.js'
import {fileSha256} from 'html-video-engine/internal/lib/files/file-sha256.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'
import type {RenderPlan} from 'html-video-engine/internal/lib/plan/render-plan.js'
import {renderCacheKey, toolchainOf} from 'html-video-engine/internal/lib/render-cache/cache-key.js'
import {renderCacheSettings} from 'html-video-engine/internal/lib/render-cache/render-cache-settings.js'
import {singleFileOutput} from 'html-video-engine/internal/lib/render/cached-output.js'
import {contentType} from 'html-video-engine/internal/lib/sandbox/content-type.js'
import {outputObjectHeaders, type OutputSettings} from './output-settings.js'
import type {RenderConfig} from './render-input.js'
import {CACHE_PREFIX} from './reserved-keys.js'
import type {BucketObjects} from './s3-objects.js'

/**
 * The render cache of the serverless stack: the local render cache's keys (the finished plan and
 * the toolchain, see renderCacheKey) over objects under the bucket's `cache/` prefix. An entry is
 * `cache/<key>/output` and then `cache/<key>/entry.json` (its size and sha256): an entry without
 * its record is no entry, so a store cut short is never hit.
 */
export const cacheOutputKey = (key: string) => `${CACHE_PREFIX}${key}/output`
export const cacheEntryKey = (key: string) => `${CACHE_PREFIX}${key}/entry.json`

export interface BucketCacheEntry {
  bytes: number
  sha256: string
  totalFrames: number
  durationSeconds: number
  storedAt: string
}

/**
 * Whether a render uses the cache: its config's `cache` when given (`render-batch --cache` /
 * `--no-cache`), else on unless the function's environment turns the render cache off
 * (ENGINE_RENDER_CACHE=off), as it does for a local render. Only single-file outputs without a
 * poster are cached, as locally only an output and its poster are (no frame folders, playlists,
 * sidecars).
 */
export function bucketCacheApplies(config: RenderConfig, format: FormatPlugin, plan: Readonly<RenderPlan>, env: NodeJS.ProcessEnv = process.env): boolean {
  const wanted = config.cache ?? renderCacheSettings(env) !== undefined
  return wanted && config.poster === undefined && singleFileOutput(format, plan)
}

/** The key a local render of this finished plan on this toolchain would have. */
export async function bucketCacheKey(plan: Readonly<RenderPlan>, browser: BrowserChoice, ffmpeg: {ffmpegPath: string; version: string}, format: FormatPlugin): Promise<string> {
  const toolchain = await toolchainOf(browser, ffmpeg, format)
  return renderCacheKey({kind: 'render', plan, toolchain, extra: {poster: null, pagesPerWorker: 1}})
}

export type BucketCacheLookup = {hit: true; entry: BucketCacheEntry} | {hit: false; reason: 'absent' | 'corrupt'; detail?: string}

/**
 * Puts a stored output at `outputKey` when the cache has the key: the object is read through the
 * function, its size and sha256 checked against its record, and only then written to the output
 * (with the render's own headers). A damaged entry is deleted and reported as a miss: the row renders.
 */
export async function restoreFromBucketCache(bucket: BucketObjects, outputs: BucketObjects, key: string, outputKey: string, settings: OutputSettings): Promise<BucketCacheLookup> {
  const entry = await bucket.getJson<BucketCacheEntry>(cacheEntryKey(key))
  if (!entry) return {hit: false, reason: 'absent'}
  const directory = await makeTempDirectory('cache-hit')
  try {
    const path = join(directory, 'output')
    await bucket.downloadFile(cacheOutputKey(key), path).catch(() => undefined)
    const sha256 = await fileSha256(path)
    if (sha256 !== entry.sha256) {
      await bucket.deleteKeys([cacheEntryKey(key), cacheOutputKey(key)])
      return {hit: false, reason: 'corrupt', detail: sha256 === undefined ? 'its object is missing' : `its sha256 is ${sha256}, its record says ${entry.sha256}`}
    }
    await outputs.uploadFile(outputKey, path, contentType(outputKey), outputObjectHeaders(settings))
    return {hit: true, entry}
  } finally {
    await rm(directory, {recursive: true, force: true})
  }
}

/** Stores an assembled output under its key: the object first, its record last. */
export async function storeInBucketCache(bucket: BucketObjects, key: string, path: string, entry: Omit<BucketCacheEntry, 'storedAt'>): Promise<void> {
  await bucket.uploadFile(cacheOutputKey(key), path, 'application/octet-stream')
  await bucket.putJson(cacheEntryKey(key), {...entry, storedAt: new Date().toISOString()} satisfies BucketCacheEntry)
}
