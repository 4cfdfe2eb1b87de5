import {createHash} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {mkdir, rename, rm, stat} from 'node:fs/promises'
import {extname, join} from 'node:path'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {fileURLToPath} from 'node:url'
import {EngineError} from '../errors/engine-error.js'
import {mediaCacheDir} from './media-cache-dir.js'

/** An unreachable or stalled media URL fails after this long (connect and transfer together). */
export const DOWNLOAD_TIMEOUT_MS = 30_000

export interface LocateOptions {
  /** Names the element in errors, e.g. `<video id="intro">`. */
  element: string
  /** The page's base URL, to show a local path relative to the composition. */
  downloadTimeoutMs?: number
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
}

/**
 * The local file behind a media element's source URL: a file:// URL must name an existing file
 * (else MEDIA_NOT_FOUND naming the element and path); an http(s) URL is downloaded once into the
 * cache, keyed by the URL, and reused by later renders.
 */
export async function locateMediaSource(url: string, options: LocateOptions): Promise<string> {
  const parsed = new URL(url)
  if (parsed.protocol === 'file:') {
    const path = fileURLToPath(parsed)
    const found = await stat(path).catch(() => undefined)
    if (!found?.isFile()) {
      throw new EngineError('MEDIA_NOT_FOUND', `${options.element}: the source file ${path} does not exist; fix its src (relative paths are resolved against the composition file)`, {
        element: options.element,
        path,
      })
    }
    return path
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return download(url, options)
  throw new EngineError('MEDIA_FAILED', `${options.element}: src "${url}" is neither a local file nor an http(s) URL`, {element: options.element, url})
}

async function download(url: string, options: LocateOptions): Promise<string> {
  const directory = mediaCacheDir('downloads', options.env)
  const extension = extname(new URL(url).pathname).slice(0, 8)
  const path = join(directory, createHash('sha256').update(url).digest('hex').slice(0, 32) + extension)
  if (await stat(path).catch(() => undefined)) return path
  await mkdir(directory, {recursive: true})
  const partial = `${path}.${process.pid}.${Date.now()}.partial`
  const timeoutMs = options.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS
  const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]
  const fail = (why: string, cause?: unknown) =>
    new EngineError('MEDIA_FAILED', `${options.element}: cannot download ${url}: ${why}`, {element: options.element, url}, {cause})
  try {
    const response = await fetch(url, {signal: AbortSignal.any(signals), redirect: 'follow'})
    if (!response.ok || !response.body) throw fail(`the server answered ${response.status} ${response.statusText}`)
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(partial))
    await rename(partial, path)
    return path
  } catch (error) {
    await rm(partial, {force: true})
    if (options.signal?.aborted) throw new EngineError('CANCELLED', 'the render was cancelled')
    if (error instanceof EngineError) throw error
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError') throw fail(`no complete answer within ${timeoutMs / 1000} s`, error)
    const cause = (error as {cause?: {code?: string; message?: string}}).cause
    throw fail(cause?.code ?? cause?.message ?? (error as Error).message, error)
  }
}
