import {createHash} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {Readable, Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import type {Response} from 'undici'
import {downloadDispatcher} from './download-network.js'

export type DownloadProgress = (downloadedBytes: number, totalBytes: number) => void
export type DownloadFail = (reason: string, cause?: unknown) => never

/** No answer (headers) for this long ends a request. */
export const ANSWER_TIMEOUT_MS = 30_000
/** No byte for this long ends a download (a whole download may take minutes on a slow line). */
export const STALL_TIMEOUT_MS = 60_000

/**
 * GETs `url` (redirects followed) through npm's network settings read from `env` (proxy, CAs,
 * strict-ssl: see downloadDispatcher); a network error, no answer in time or a status other than
 * 2xx goes to `fail` with the URL and the reason.
 */
export async function request(
  url: string,
  fail: DownloadFail,
  options: {signal?: AbortSignal; headers?: Record<string, string>; answerTimeoutMs?: number; env?: NodeJS.ProcessEnv} = {},
): Promise<Response> {
  const [{fetch}, dispatcher] = await Promise.all([import('undici'), downloadDispatcher(options.env)])
  const answered = new AbortController()
  const timer = setTimeout(() => answered.abort(new DOMException('no answer', 'TimeoutError')), options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS)
  const signal = options.signal ? AbortSignal.any([options.signal, answered.signal]) : answered.signal
  let response: Response
  try {
    response = await fetch(url, {signal, headers: options.headers, redirect: 'follow', dispatcher})
  } catch (error) {
    const cause = (error as {cause?: NodeJS.ErrnoException}).cause
    const reason = (error as Error).name === 'TimeoutError' || answered.signal.aborted ? 'no answer in time' : (cause?.message ?? (error as Error).message) + certificateHint(cause?.code)
    return fail(`${url}: ${reason}`, error)
  } finally {
    clearTimeout(timer)
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel()
    return fail(`${url} answered ${response.status} ${response.statusText}`)
  }
  return response
}

export function bodyStream(response: Response): Readable {
  return Readable.fromWeb(response.body! as import('node:stream/web').ReadableStream<Uint8Array>)
}

/**
 * Streams `url` into `file` while hashing it: at most `maxBytes` (an announced or actual larger
 * body is refused), and a download that sends nothing for STALL_TIMEOUT_MS is ended. Returns the
 * digest in `encoding`; the caller compares it before reading the file.
 */
export async function downloadToFile(
  url: string,
  file: string,
  options: {algorithm: string; encoding: 'hex' | 'base64'; maxBytes: number; fail: DownloadFail; onProgress?: DownloadProgress; stallTimeoutMs?: number; deadlineMs?: number; env?: NodeJS.ProcessEnv},
): Promise<{digest: string; bytes: number}> {
  const {fail, maxBytes} = options
  const stallMs = options.stallTimeoutMs ?? STALL_TIMEOUT_MS
  const stall = new AbortController()
  // A body that trickles in just under the stall limit is still ended at the deadline.
  const deadline = options.deadlineMs === undefined ? undefined : AbortSignal.timeout(options.deadlineMs)
  const signal = deadline ? AbortSignal.any([stall.signal, deadline]) : stall.signal
  const response = await request(url, fail, {signal, env: options.env})
  const total = Number(response.headers.get('content-length') ?? 0)
  if (total > maxBytes) {
    await response.body?.cancel()
    fail(`${url} is ${total} bytes, more than the ${maxBytes} expected at most`)
  }
  const hash = createHash(options.algorithm)
  let done = 0
  let timer = setTimeout(() => stall.abort(), stallMs)
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      done += chunk.length
      if (done > maxBytes) return callback(new Error(`${url} sent more than ${maxBytes} bytes`))
      clearTimeout(timer)
      timer = setTimeout(() => stall.abort(), stallMs)
      hash.update(chunk)
      options.onProgress?.(done, total)
      callback(null, chunk)
    },
  })
  try {
    await pipeline(bodyStream(response), meter, createWriteStream(file))
  } catch (error) {
    if (deadline?.aborted) fail(`${url}: not downloaded within ${options.deadlineMs! / 1000} s`, error)
    fail(stall.signal.aborted ? `${url}: no data for ${stallMs / 1000} s` : (error as Error).message, error)
  } finally {
    clearTimeout(timer)
  }
  return {digest: hash.digest(options.encoding), bytes: done}
}

/** A TLS failure is most often a company proxy's CA that Node does not know: say where npm is told about it. */
function certificateHint(code: string | undefined): string {
  if (!code || !/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) return ''
  return ` (${code}: engine trusts the CAs npm is told about, so \`npm config set cafile <file.pem>\` with the CA that signs this certificate, or NODE_EXTRA_CA_CERTS=<file.pem>)`
}
