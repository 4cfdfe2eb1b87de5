import {execFile} from 'node:child_process'
import {mkdir, rename, rm, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {promisify} from 'node:util'
import {findPinnedFfmpeg, hostFfmpegArch, PINNED_RECORD, pinnedFfmpegDir, type InstalledPinnedFfmpeg, type PinnedFfmpegBuild, type PinnedFfmpegRecord} from '../encode/pinned-ffmpeg.js'
import {EngineError} from '../errors/engine-error.js'
import {downloadToFile, type DownloadProgress} from './download-file.js'
import {FFMPEG_MIRROR_ENV} from './download-mirrors.js'
import {extractPrograms} from './ffmpeg-archive.js'

/** The published archives are about 40 MB; a body far larger is not the build. */
const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024
/** 40 MB at 0.5 Mbit/s; a download slower than that ends rather than holds a bundle or a render forever. */
const ARCHIVE_DEADLINE_MS = 15 * 60_000

export interface PinnedFfmpegResult extends InstalledPinnedFfmpeg {
  /** 'cache': there from before; 'download': fetched and placed now. */
  source: 'cache' | 'download'
}

/** The addresses of one build, in the order they are tried: the mirror alone when one is set. */
export function pinnedFfmpegUrls(pinned: PinnedFfmpegBuild, mirror?: string): string[] {
  return mirror ? [`${mirror}/${pinned.archive}`] : [...pinned.urls]
}

/** What to do when the pinned build cannot be had: the same words for every caller. */
export function pinnedFfmpegFix(pinned: PinnedFfmpegBuild): string {
  return `download ${pinned.urls[0]} (sha256 ${pinned.sha256}) yourself and pass its ffmpeg and ffprobe with --ffmpeg/--ffprobe, or serve the archive from a mirror folder named in ${FFMPEG_MIRROR_ENV}`
}

/**
 * The pinned ffmpeg/ffprobe build in engine's cache: there already, or downloaded now (from the
 * mirror when one is given, else from each published address in turn), its sha256 checked
 * before a byte of it is read, only the two programs taken out of it, and the folder renamed into
 * place at the end, so a failure at any step leaves nothing in the cache a render would pick up.
 * A checksum that differs is refused at once (no other address is tried: the same file moved).
 */
export async function installPinnedFfmpeg(
  pinned: PinnedFfmpegBuild,
  options: {mirror?: string; env?: NodeJS.ProcessEnv; onProgress?: DownloadProgress; stallTimeoutMs?: number; deadlineMs?: number} = {},
): Promise<PinnedFfmpegResult> {
  const cached = await findPinnedFfmpeg(pinned, options.env)
  if (cached) return {...cached, source: 'cache'}
  const directory = pinnedFfmpegDir(pinned, options.env)
  await mkdir(dirname(directory), {recursive: true})
  const staging = `${directory}.partial-${process.pid}-${Date.now()}`
  await mkdir(staging, {recursive: true})
  try {
    const archive = join(staging, pinned.archive)
    const url = await downloadArchive(pinned, archive, options)
    const refuse = (reason: string, cause?: unknown): never => {
      throw new EngineError('DOWNLOAD_FAILED', `ffmpeg ${pinned.version} (${pinned.arch}) from ${url}: ${reason}; nothing was installed. ${capitalise(pinnedFfmpegFix(pinned))}`, {url, archive: pinned.archive}, {cause})
    }
    const ffmpegPath = join(staging, 'ffmpeg')
    const ffprobePath = join(staging, 'ffprobe')
    const hashes = await extractPrograms(archive, [{inside: pinned.ffmpeg, file: ffmpegPath}, {inside: pinned.ffprobe, file: ffprobePath}], refuse)
    await rm(archive, {force: true})
    if (hostFfmpegArch() === pinned.arch) await assertRuns(ffmpegPath, refuse)
    const record: PinnedFfmpegRecord = {version: pinned.version, arch: pinned.arch, sha256: pinned.sha256, url, ffmpegSha256: hashes.get(ffmpegPath)!, ffprobeSha256: hashes.get(ffprobePath)!}
    await writeFile(join(staging, PINNED_RECORD), JSON.stringify(record, null, 2) + '\n')
    await rm(directory, {recursive: true, force: true})
    await rename(staging, directory)
  } catch (error) {
    await rm(staging, {recursive: true, force: true})
    // Another process may have placed the same build meanwhile.
    const placed = await findPinnedFfmpeg(pinned, options.env)
    if (placed) return {...placed, source: 'cache'}
    throw error
  }
  const installed = await findPinnedFfmpeg(pinned, options.env)
  if (!installed) throw new EngineError('INTERNAL', `the pinned ffmpeg was placed in ${directory} but is not found there`, {directory})
  return {...installed, source: 'download'}
}

/** Downloads the archive from the first address that answers; returns that address. */
async function downloadArchive(pinned: PinnedFfmpegBuild, archive: string, options: {mirror?: string; onProgress?: DownloadProgress; stallTimeoutMs?: number; deadlineMs?: number; env?: NodeJS.ProcessEnv}): Promise<string> {
  const urls = pinnedFfmpegUrls(pinned, options.mirror)
  const unreachable: string[] = []
  for (const url of urls) {
    const fail = (reason: string, cause?: unknown): never => {
      throw new EngineError('DOWNLOAD_FAILED', reason, {url}, {cause})
    }
    let digest: string
    try {
      ;({digest} = await downloadToFile(url, archive, {algorithm: 'sha256', encoding: 'hex', maxBytes: MAX_ARCHIVE_BYTES, fail, onProgress: options.onProgress, stallTimeoutMs: options.stallTimeoutMs, deadlineMs: options.deadlineMs ?? ARCHIVE_DEADLINE_MS, env: options.env}))
    } catch (error) {
      unreachable.push((error as Error).message)
      continue
    }
    if (digest !== pinned.sha256) {
      throw new EngineError(
        'DOWNLOAD_FAILED',
        `ffmpeg ${pinned.version} (${pinned.arch}) from ${url} does not match its pinned sha256 (expected ${pinned.sha256}, got ${digest}); nothing was extracted or installed. ` +
          `If a proxy or mirror serves another file, ${pinnedFfmpegFix(pinned)}`,
        {url, expected: pinned.sha256, actual: digest},
      )
    }
    return url
  }
  throw new EngineError('DOWNLOAD_FAILED', `could not download ffmpeg ${pinned.version} (${pinned.arch}): ${unreachable.join('; ')}. ${capitalise(pinnedFfmpegFix(pinned))}`, {urls, archive: pinned.archive})
}

const execFileAsync = promisify(execFile)

async function assertRuns(ffmpegPath: string, refuse: (reason: string, cause?: unknown) => never): Promise<void> {
  await execFileAsync(ffmpegPath, ['-hide_banner', '-version'], {timeout: 20_000}).catch((error: Error) => refuse(`its ffmpeg does not run here (${error.message.split('\n')[0]})`, error))
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
