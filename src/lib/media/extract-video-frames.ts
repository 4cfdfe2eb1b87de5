import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {mkdir, readFile, readdir, rename, rm, writeFile} from 'node:fs/promises'
import {basename, join} from 'node:path'
import {engineAssetUrl} from '../sandbox/page-origin.js'
import {EngineError} from '../errors/engine-error.js'
import {runFfmpeg} from '../encode/run-ffmpeg.js'
import {mediaCacheDir} from './media-cache-dir.js'
import {FileMemo} from './file-memo.js'
import type {ProbedVideo} from './probe-media.js'
import type {RuntimeVideoFrames} from '../runtime/runtime-media.js'
import type {VideoFrameFormat} from '../plan/render-plan.js'

export type {VideoFrameFormat} from '../plan/render-plan.js'

export interface ExtractVideoFramesOptions {
  ffmpegPath: string
  path: string
  video: ProbedVideo
  /** `--video-frame-format`: auto picks png for sources with alpha, jpg for opaque ones. */
  frameFormat: VideoFrameFormat
  /** Filters applied to every frame (colour grading), with a key naming what they do (paths inside vary per render). */
  filter?: {chain: string; key: string}
  element: string
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
}

/** Bump when the extraction changes, so older cached frames are not reused. */
const EXTRACTION_VERSION = 1
const MANIFEST = 'frames.json'
const DEFAULT_FPS = 30

/** The page is sRGB: PQ/HLG sources are tone-mapped to BT.709 before their frames join it. */
const TONE_MAP_TO_SDR = 'zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p'

function isHdr(video: ProbedVideo): boolean {
  return video.colorTransfer === 'smpte2084' || video.colorTransfer === 'arib-std-b67'
}

export function frameExtension(format: VideoFrameFormat, video: ProbedVideo): 'jpg' | 'png' {
  if (format === 'auto') return video.alpha ? 'png' : 'jpg'
  return format
}

/** Content hashes of source videos, read once per process while the file is unchanged. */
const contentHashes = new FileMemo<string>()

function hashFile(path: string): Promise<string> {
  return contentHashes.get(path, async () => {
    const hash = createHash('sha256')
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
    return hash.digest('hex')
  })
}

/** The decoder that keeps a VP8/VP9 alpha side stream (ffmpeg's native ones drop it). */
function decoderArgs(video: ProbedVideo): string[] {
  if (!video.alpha) return []
  if (video.codec === 'vp9') return ['-c:v', 'libvpx-vp9']
  if (video.codec === 'vp8') return ['-c:v', 'libvpx']
  return []
}

/**
 * Extracts every frame of a source video (on a constant-rate grid at its own frame rate) into the
 * frame cache, keyed by the source's content, the image format and the filter: a second render of
 * the same source reuses them. Frames are written under a temporary name and moved into place
 * whole, so a crashed extraction is never mistaken for a finished one.
 */
export async function extractVideoFrames(options: ExtractVideoFramesOptions): Promise<Omit<RuntimeVideoFrames, 'directoryUrl'> & {directory: string}> {
  const extension = frameExtension(options.frameFormat, options.video)
  const fps = options.video.fps > 0 ? options.video.fps : DEFAULT_FPS
  const key = createHash('sha256')
  key.update(JSON.stringify({v: EXTRACTION_VERSION, source: await hashFile(options.path), extension, fps, filter: options.filter?.key ?? ''}))
  const root = mediaCacheDir('frames', options.env)
  const directory = join(root, key.digest('hex').slice(0, 32))

  const cached = await readManifest(directory)
  if (cached) return {...cached, extension, directory}

  await mkdir(root, {recursive: true})
  const partial = `${directory}.${process.pid}.${Date.now()}.partial`
  await mkdir(partial, {recursive: true})
  try {
    const filters = [`fps=${fps}`, ...(isHdr(options.video) ? [TONE_MAP_TO_SDR] : []), ...(options.filter ? [options.filter.chain] : [])]
    const pixel = extension === 'png' ? ['-pix_fmt', options.video.alpha ? 'rgba' : 'rgb24'] : ['-q:v', '2']
    await runFfmpeg(
      options.ffmpegPath,
      [...decoderArgs(options.video), '-i', options.path, '-map', '0:v:0', '-an', '-vf', filters.join(','), ...pixel, '-start_number', '0', join(partial, `%06d.${extension}`)],
      {what: `extracting the frames of ${options.element} (${options.path})`, signal: options.signal},
    ).catch((error: unknown) => {
      if (error instanceof EngineError && error.code === 'ENCODE_FAILED') {
        throw new EngineError('MEDIA_FAILED', error.message, {element: options.element, path: options.path}, {cause: error})
      }
      throw error
    })
    const count = (await readdir(partial)).filter((name) => name.endsWith(`.${extension}`)).length
    if (count === 0) throw new EngineError('MEDIA_FAILED', `${options.element}: ${options.path} has no video frames to show`, {element: options.element, path: options.path})
    await writeFile(join(partial, MANIFEST), JSON.stringify({count, fps}))
    await rename(partial, directory).catch(async (error: NodeJS.ErrnoException) => {
      // Another render extracted the same frames meanwhile: theirs are as good as ours.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error
      await rm(partial, {recursive: true, force: true})
    })
    return {count, fps, extension, directory}
  } catch (error) {
    await rm(partial, {recursive: true, force: true})
    throw error
  }
}

async function readManifest(directory: string): Promise<{count: number; fps: number} | undefined> {
  try {
    return JSON.parse(await readFile(join(directory, MANIFEST), 'utf8')) as {count: number; fps: number}
  } catch {
    return undefined
  }
}

/**
 * The directory as the page loads it: an engine asset URL on the page origin (frames are
 * extracted under `engineAssetDirectory('media')/frames`), with a trailing slash so that frame
 * names resolve inside it.
 */
export function framesDirectoryUrl(directory: string): string {
  return engineAssetUrl('media', `frames/${basename(directory)}/`)
}

/** Whether the frames a plan's page is told about (by their directory URL) are in this machine's frame cache. */
export async function framesExtractedHere(directoryUrl: string, env?: NodeJS.ProcessEnv): Promise<boolean> {
  const name = new URL(directoryUrl).pathname.split('/').filter(Boolean).at(-1)
  return name !== undefined && (await readManifest(join(mediaCacheDir('frames', env), decodeURIComponent(name)))) !== undefined
}
