import {createHash} from 'node:crypto'
import {lookup as dnsLookup, type LookupAddress} from 'node:dns'
import {createWriteStream} from 'node:fs'
import {mkdir, readFile, rename, rm, stat, writeFile} from 'node:fs/promises'
import {request as httpRequest, type IncomingMessage} from 'node:http'
import {request as httpsRequest} from 'node:https'
import type {LookupFunction} from 'node:net'
import {extname, join} from 'node:path'
import {pipeline} from 'node:stream/promises'
import ipaddr from 'ipaddr.js'
import {EngineError} from '../errors/engine-error.js'
import {isPublicAddress} from './address-policy.js'
import {hostRules} from './host-rules.js'
import type {NetworkSettings} from './network-settings.js'
import {engineAssetDirectory} from './page-origin.js'

/** An unreachable or stalled URL fails after this long (connect and transfer together). */
export const DOWNLOAD_TIMEOUT_MS = 30_000
const MAX_REDIRECTS = 5
const MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3

export interface FetchRemoteOptions {
  network: NetworkSettings
  timeoutMs?: number
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
}

export interface RemoteFile {
  /** The cached copy on this machine. */
  path: string
  contentType: string
}

interface CacheMeta {
  url: string
  contentType: string
  /** Fetched from a loopback or private address: reused only where those are allowed. */
  private: boolean
}

/**
 * A public http(s) URL, downloaded once into `<cache>/media/downloads` (keyed by the URL) and then
 * read from there. Every connection, redirects included, goes only to an address the network
 * settings allow: the host name is resolved here and the checked address is the one connected to,
 * so a name that resolves to loopback or a private network (or changes its answer between a check
 * and the connection) is refused with REQUEST_BLOCKED. Other failures are DOWNLOAD_FAILED.
 */
export async function fetchRemote(url: string, options: FetchRemoteOptions): Promise<RemoteFile> {
  if (!options.network.publicUrls) throw blocked(url, 'network access is off (--no-network)')
  const directory = join(engineAssetDirectory('media', options.env), 'downloads')
  const key = createHash('sha256').update(url).digest('hex').slice(0, 32)
  const path = join(directory, key + extname(new URL(url).pathname).slice(0, 8).replace(/[^.\w]/g, ''))
  const cached = await readMeta(`${path}.json`)
  const usable = cached?.url === url && (!cached.private || options.network.privateAddresses)
  if (usable && (await stat(path).catch(() => undefined))?.isFile()) return {path, contentType: cached.contentType}

  await mkdir(directory, {recursive: true})
  const timeoutMs = options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])])
  const partial = `${path}.${process.pid}.${Date.now()}.partial`
  try {
    const {response, private: fromPrivate} = await follow(url, options, signal)
    let bytes = 0
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > MAX_DOWNLOAD_BYTES) response.destroy(failed(url, `it is larger than ${MAX_DOWNLOAD_BYTES / 1024 ** 3} GiB`))
    })
    await pipeline(response, createWriteStream(partial), {signal})
    const meta: CacheMeta = {url, contentType: response.headers['content-type'] ?? 'application/octet-stream', private: fromPrivate}
    await rename(partial, path)
    await writeFile(`${path}.json`, JSON.stringify(meta))
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

async function readMeta(path: string): Promise<CacheMeta | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as CacheMeta
  } catch {
    return undefined
  }
}

function blocked(url: string, why: string): EngineError {
  return new EngineError('REQUEST_BLOCKED', `${url} is blocked: ${why}`, {url})
}

function failed(url: string, why: string, cause?: unknown): EngineError {
  return new EngineError('DOWNLOAD_FAILED', `cannot download ${url}: ${why}`, {url}, {cause})
}
