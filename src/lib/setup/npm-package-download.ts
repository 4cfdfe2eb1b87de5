import {createHash} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {chmod, mkdir, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {Readable, Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {extract} from 'tar'
import {z} from 'zod'
import type {StaticBinaryPackage} from '../encode/static-ffmpeg.js'
import {EngineError} from '../errors/engine-error.js'

export type DownloadProgress = (downloadedBytes: number, totalBytes: number) => void

/** A package document larger than this is no registry's answer for these small packages. */
const MAX_PACKUMENT_BYTES = 16 * 1024 * 1024
/** The largest static build is about 80 MB packed; more is not the package we asked for. */
const MAX_TARBALL_BYTES = 512 * 1024 * 1024
const PACKUMENT_TIMEOUT_MS = 30_000
/** No byte for this long ends a tarball download (a whole download may take minutes on a slow line). */
const STALL_TIMEOUT_MS = 60_000

const packumentSchema = z.object({
  versions: z.record(
    z.string(),
    z.object({
      dist: z.object({tarball: z.url({protocol: /^https?$/}), integrity: z.string().optional(), shasum: z.string().optional()}),
    }),
  ),
})

/**
 * Downloads one file of an npm package from a registry into `directory` (made executable): see
 * downloadPackageFiles.
 */
export async function downloadPackageFile(
  pkg: StaticBinaryPackage,
  options: {registry: string; directory: string; onProgress?: DownloadProgress},
): Promise<string> {
  const [binary] = await downloadPackageFiles({name: pkg.name, version: pkg.version, files: [pkg.file]}, options)
  await chmod(binary, 0o755)
  return binary
}

/**
 * Downloads files of an npm package from a registry into `directory` (each at its path inside the
 * package): the package document gives the tarball's address and its integrity hash (as npm checks
 * it), the tarball is checked against that hash before anything is unpacked, and only the files
 * asked for are taken.
 */
export async function downloadPackageFiles(
  pkg: {name: string; version: string; files: readonly string[]},
  options: {registry: string; directory: string; onProgress?: DownloadProgress},
): Promise<string[]> {
  const spec = `${pkg.name}@${pkg.version}`
  const fail = (reason: string, cause?: unknown): never => {
    throw new EngineError('DOWNLOAD_FAILED', `could not download ${spec} from ${options.registry}: ${reason}`, {package: spec, registry: options.registry}, {cause})
  }
  const documentUrl = `${options.registry}/${pkg.name.replace('/', '%2f')}`
  const document = await request(documentUrl, AbortSignal.timeout(PACKUMENT_TIMEOUT_MS), fail, {accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8'})
  const text = await readCapped(document, MAX_PACKUMENT_BYTES, fail)
  let parsed
  try {
    parsed = packumentSchema.parse(JSON.parse(text))
  } catch (error) {
    return fail(`${documentUrl} is not an npm package document`, error)
  }
  const dist = parsed.versions[pkg.version]?.dist ?? fail(`the registry has no version ${pkg.version} of ${pkg.name}`)
  const expected = expectedHash(dist) ?? fail(`the registry gives no integrity hash for ${spec}`)

  await mkdir(options.directory, {recursive: true})
  const tarball = join(options.directory, `${pkg.name.replace('/', '-')}-${pkg.version}.tgz`)
  try {
    const stall = new AbortController()
    const response = await request(dist.tarball, stall.signal, fail)
    const total = Number(response.headers.get('content-length') ?? 0)
    if (total > MAX_TARBALL_BYTES) fail(`${dist.tarball} is ${total} bytes, more than the ${MAX_TARBALL_BYTES} a static build can be`)
    const hash = createHash(expected.algorithm)
    let done = 0
    let timer = setTimeout(() => stall.abort(), STALL_TIMEOUT_MS)
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        done += chunk.length
        if (done > MAX_TARBALL_BYTES) return callback(new Error(`more than ${MAX_TARBALL_BYTES} bytes`))
        clearTimeout(timer)
        timer = setTimeout(() => stall.abort(), STALL_TIMEOUT_MS)
        hash.update(chunk)
        options.onProgress?.(done, total)
        callback(null, chunk)
      },
    })
    try {
      await pipeline(bodyStream(response), meter, createWriteStream(tarball))
    } catch (error) {
      fail(stall.signal.aborted ? `no data for ${STALL_TIMEOUT_MS / 1000} s` : (error as Error).message, error)
    } finally {
      clearTimeout(timer)
    }
    const actual = hash.digest(expected.encoding)
    if (actual !== expected.value) fail(`the tarball does not match the registry's ${expected.algorithm} (expected ${expected.value}, got ${actual}); nothing was installed`)

    // npm strips a tarball's top folder, whatever its name ("package/" by convention).
    const found = new Set<string>()
    const wanted = (path: string) => {
      const inside = path.split('/').slice(1).join('/')
      if (!pkg.files.includes(inside)) return false
      found.add(inside)
      return true
    }
    await extract({file: tarball, cwd: options.directory, strip: 1, filter: wanted})
    const missing = pkg.files.filter((file) => !found.has(file))
    if (missing.length > 0) fail(`the package has no ${missing.join(', ')}`)
    return pkg.files.map((file) => join(options.directory, file))
  } finally {
    await rm(tarball, {force: true})
  }
}

interface ExpectedHash {
  algorithm: 'sha512' | 'sha1'
  encoding: 'base64' | 'hex'
  value: string
}

/** npm's integrity (`sha512-<base64>`), else the older sha1 `shasum`. */
function expectedHash(dist: {integrity?: string; shasum?: string}): ExpectedHash | undefined {
  const sha512 = dist.integrity?.split(/\s+/).find((entry) => entry.startsWith('sha512-'))
  if (sha512) return {algorithm: 'sha512', encoding: 'base64', value: sha512.slice('sha512-'.length)}
  if (dist.shasum && /^[0-9a-f]{40}$/.test(dist.shasum)) return {algorithm: 'sha1', encoding: 'hex', value: dist.shasum}
  return undefined
}

async function request(url: string, signal: AbortSignal, fail: (reason: string, cause?: unknown) => never, headers: Record<string, string> = {}): Promise<Response> {
  let response: Response
  try {
    response = await fetch(url, {signal, headers, redirect: 'follow'})
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'no answer in time' : ((error as {cause?: Error}).cause?.message ?? (error as Error).message)
    return fail(`${url}: ${reason}`, error)
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel()
    return fail(`${url} answered ${response.status} ${response.statusText}`)
  }
  return response
}

async function readCapped(response: Response, cap: number, fail: (reason: string) => never): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of bodyStream(response) as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > cap) fail(`${response.url} sent more than ${cap} bytes`)
    chunks.push(Buffer.from(chunk))
  }
  return Buffer.concat(chunks).toString('utf8')
}

function bodyStream(response: Response): Readable {
  return Readable.fromWeb(response.body! as import('node:stream/web').ReadableStream<Uint8Array>)
}
