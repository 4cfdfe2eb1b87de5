import {createHash} from 'node:crypto'
import {lookup as dnsLookup, type LookupAddress} from 'node:dns'
import {createWriteStream} from 'node:fs'
import {mkdir, rename, rm, stat, writeFile} from 'node:fs/promises'
import {request as httpRequest, type IncomingMessage} from 'node:http'
import {request as httpsRequest} from 'node:https'
import type {LookupFunction} from 'node:net'
import {extname, join} from 'node:path'
import {pipeline} from 'node:stream/promises'
import ipaddr from 'ipaddr.js'
import {EngineError} from '../errors/engine-error.js'
import {isPublicAddress} from './address-policy.js'
import {afterDownload, downloadsDirectory, markUsed, readCacheMeta, type CacheMeta} from './download-cache.js'
import {hostRules} from './host-rules.js'
import type {NetworkSettings} from './network-settings.js'

/** An unreachable or stalled URL fails after this long (connect and transfer together). */
export const DOWNLOAD_TIMEOUT_MS = 30_000
export const MAX_REDIRECTS = 5
/** The largest file a render downloads (a source video); what the page itself loads is capped lower. */
export const MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3

/** What one render may still download, shared by all its downloads. */
export interface DownloadAllowance {
  remainingBytes: number
  readonly limitBytes: number
}

export interface FetchRemoteOptions {
  network: NetworkSettings
  timeoutMs?: number
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
  /** This file may be at most this large (default MAX_DOWNLOAD_BYTES). */
  maxBytes?: number
  /** The render's own allowance, spent by each download that is not already cached. */
  allowance?: DownloadAllowance
}

export interface RemoteFile {
  /** The cached copy on this machine. */
  path: string
  contentType: string
}

/**
 * A public http(s) URL, downloaded once into `<cache>/media/downloads` (keyed by the URL) and then
 * read from there. Every connection, redirects included, goes only to an address the network
 * settings allow: the host name is resolved here and the checked address is the one connected to,
 * so a name that resolves to loopback or a private network (or changes its answer between a check
 * and the connection) is refused with REQUEST_BLOCKED. A file over `maxBytes` or the render's
 * allowance is refused by its Content-Length before any byte is read, and cut off if it sends
 * more than it said; the cache is then held to its budget (least recently used out). Other
 * failures are DOWNLOAD_FAILED.
 */
export async function fetchRemote(url: string, options: FetchRemoteOptions): Promise<RemoteFile> {
  if (!options.network.publicUrls) throw blocked(url, 'network access is off (--no-network)')
  const directory = downloadsDirectory(options.env)
  const key = createHash('sha256').update(url).digest('hex').slice(0, 32)
  const path = join(directory, key + extname(new URL(url).pathname).slice(0, 8).replace(/[^.\w]/g, ''))
  const cached = await readCacheMeta(path)
  const usable = cached?.url === url && (!cached.private || options.network.privateAddresses)
  const found = usable ? await stat(path).catch(() => undefined) : undefined
  if (cached && found?.isFile()) {
    await markUsed(path)
    return {path, contentType: cached.contentType}
  }

  await mkdir(directory, {recursive: true})
  const timeoutMs = options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])])
  const partial = `${path}.${process.pid}.${Date.now()}.partial`
  const {maxBytes = MAX_DOWNLOAD_BYTES, allowance} = options
  // The first of the file's cap and what the render may still download.
  const limit = () =>
    allowance && allowance.remainingBytes < maxBytes
      ? {bytes: allowance.remainingBytes, why: `the render has downloaded ${size(allowance.limitBytes - allowance.remainingBytes)} of the ${size(allowance.limitBytes)} one render may`}
      : {bytes: maxBytes, why: `a file may be at most ${size(maxBytes)}`}
  try {
    const {response, private: fromPrivate} = await follow(url, options, signal)
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit().bytes) {
      response.destroy()
      throw failed(url, `it is ${size(declared)} (Content-Length) and ${limit().why}`)
    }
    let bytes = 0
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > limit().bytes) response.destroy(failed(url, `it sent more than ${size(limit().bytes)} and ${limit().why}`))
    })
    await pipeline(response, createWriteStream(partial), {signal})
    if (allowance) allowance.remainingBytes -= bytes
    const meta: CacheMeta = {url, contentType: response.headers['content-type'] ?? 'application/octet-stream', private: fromPrivate}
    await rename(partial, path)
    await writeFile(`${path}.json`, JSON.stringify(meta))
    // Stamped by this process's clock, as a reuse is (markUsed): the time the kernel gives the
    // written file is coarser and can lag it by a tick, so a file used a moment before this
    // download could otherwise look the more recently used one.
    await markUsed(path)
    // A cache that cannot be trimmed (another process is at it) is no reason to fail the render.
    await afterDownload(bytes, options.env).catch(() => {})
    return {path, contentType: meta.contentType}
  } catch (error) {
    await rm(partial, {force: true})
    if (options.signal?.aborted) throw new EngineError('CANCELLED', 'the render was cancelled')
    if (error instanceof EngineError) throw error
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError') throw failed(url, `no complete answer within ${timeoutMs / 1000} s`, error)
    throw failed(url, (error as NodeJS.ErrnoException).code ?? (error as Error).message, error)
  }
}

/** GETs `url`, following up to five redirects, each checked like the first request. */
async function follow(url: string, options: FetchRemoteOptions, signal: AbortSignal): Promise<{response: IncomingMessage; private: boolean}> {
  let current = new URL(url)
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') throw blocked(url, `it redirects to ${current.href}, which is not http(s)`)
    const reached = {private: false}
    const response = await get(current, guardedLookup(url, options, reached), signal, url, options.network, reached)
    const location = response.headers.location
    if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.resume()
      if (hop >= MAX_REDIRECTS) throw failed(url, `more than ${MAX_REDIRECTS} redirects`)
      current = new URL(location, current)
      continue
    }
    if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode >= 300) {
      response.resume()
      throw failed(url, `the server answered ${response.statusCode} ${response.statusMessage ?? ''}`.trim())
    }
    return {response, private: reached.private}
  }
}

function get(target: URL, lookup: LookupFunction, signal: AbortSignal, original: string, network: NetworkSettings, reached: {private: boolean}): Promise<IncomingMessage> {
  const literal = target.hostname.replace(/^\[|\]$/g, '')
  // Node connects to an IP literal without calling `lookup`, so literals are checked here.
  if (ipaddr.isValid(literal) && !isPublicAddress(literal)) {
    if (!network.privateAddresses) return Promise.reject(blocked(original, `${literal} is a loopback, private or link-local address`))
    reached.private = true
  }
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const outgoing = request(target, {method: 'GET', lookup, signal, headers: {'user-agent': 'engine', accept: '*/*'}}, resolve)
    outgoing.on('error', reject)
    outgoing.end()
  })
}

/** A lookup that answers from ENGINE_HOST_RESOLVER_RULES or DNS, and refuses non-public answers. */
function guardedLookup(original: string, options: FetchRemoteOptions, reached: {private: boolean}): LookupFunction {
  const rules = hostRules(options.env)
  return (hostname, lookupOptions, callback) => {
    const answer = (addresses: LookupAddress[]) => {
      if (lookupOptions.all) (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses)
      else callback(null, addresses[0].address, addresses[0].family)
    }
    const mapped = rules.get(hostname.toLowerCase())
    if (mapped !== undefined) return answer([{address: mapped, family: mapped.includes(':') ? 6 : 4}])
    dnsLookup(hostname, {all: true, family: lookupOptions.family}, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const inside = addresses.filter((address) => !isPublicAddress(address.address))
      if (inside.length > 0 && !options.network.privateAddresses) {
        return callback(blocked(original, `${hostname} resolves to ${inside[0].address}, a loopback, private or link-local address`), '', 0)
      }
      reached.private ||= inside.length > 0
      answer(addresses)
    })
  }
}

/** `128 MB`, `2 GB`: sizes for messages. */
function size(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${Math.round((bytes / 1024 ** 3) * 10) / 10} GB` : `${Math.max(1, Math.round(bytes / 1024 ** 2))} MB`
}

function blocked(url: string, why: string): EngineError {
  return new EngineError('REQUEST_BLOCKED', `${url} is blocked: ${why}`, {url})
}

function failed(url: string, why: string, cause?: unknown): EngineError {
  return new EngineError('DOWNLOAD_FAILED', `cannot download ${url}: ${why}`, {url}, {cause})
}
