import {chmod, mkdir, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {extract} from 'tar'
import {z} from 'zod'
import type {StaticBinaryPackage} from '../encode/static-ffmpeg.js'
import {EngineError} from '../errors/engine-error.js'
import {bodyStream, downloadToFile, request, type DownloadProgress} from './download-file.js'
import {copyFromNpmCache, type PackageHash} from './npm-cache.js'
import {readNpmConfig} from './npm-config.js'

export type {DownloadProgress} from './download-file.js'

/** A package document larger than this is no registry's answer for these small packages. */
const MAX_PACKUMENT_BYTES = 16 * 1024 * 1024
/** The largest static build is about 80 MB packed; more is not the package we asked for. */
const MAX_TARBALL_BYTES = 512 * 1024 * 1024
const PACKUMENT_TIMEOUT_MS = 30_000

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
  options: PackageDownloadOptions,
): Promise<string> {
  const [binary] = await downloadPackageFiles({name: pkg.name, version: pkg.version, files: [pkg.file]}, options)
  await chmod(binary, 0o755)
  return binary
}

export interface PackageDownloadOptions {
  registry: string
  directory: string
  onProgress?: DownloadProgress
  /** Where npm's settings are read from (network, cache): see readNpmConfig. */
  env?: NodeJS.ProcessEnv
}

/**
 * Downloads files of an npm package from a registry into `directory` (each at its path inside the
 * package): the package document gives the tarball's address and its integrity hash (as npm checks
 * it), the tarball is checked against that hash before anything is unpacked, and only the files
 * asked for are taken. A tarball npm already fetched is copied out of npm's cache (same hash)
 * instead of downloaded again.
 */
export async function downloadPackageFiles(pkg: {name: string; version: string; files: readonly string[]}, options: PackageDownloadOptions): Promise<string[]> {
  const env = options.env ?? process.env
  const spec = `${pkg.name}@${pkg.version}`
  const fail = (reason: string, cause?: unknown): never => {
    throw new EngineError('DOWNLOAD_FAILED', `could not download ${spec} from ${options.registry}: ${reason}`, {package: spec, registry: options.registry}, {cause})
  }
  const documentUrl = `${options.registry}/${pkg.name.replace('/', '%2f')}`
  const document = await request(documentUrl, fail, {signal: AbortSignal.timeout(PACKUMENT_TIMEOUT_MS), headers: {accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8'}, env})
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
    if (!(await copyFromNpmCache(readNpmConfig(env).cache, expected, tarball, MAX_TARBALL_BYTES))) {
      const {digest: actual} = await downloadToFile(dist.tarball, tarball, {algorithm: expected.algorithm, encoding: expected.encoding, maxBytes: MAX_TARBALL_BYTES, fail, onProgress: options.onProgress, env})
      if (actual !== expected.value) fail(`the tarball does not match the registry's ${expected.algorithm} (expected ${expected.value}, got ${actual}); nothing was installed`)
    }

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

/** npm's integrity (`sha512-<base64>`), else the older sha1 `shasum`. */
function expectedHash(dist: {integrity?: string; shasum?: string}): PackageHash | undefined {
  const sha512 = dist.integrity?.split(/\s+/).find((entry) => entry.startsWith('sha512-'))
  if (sha512) return {algorithm: 'sha512', encoding: 'base64', value: sha512.slice('sha512-'.length)}
  if (dist.shasum && /^[0-9a-f]{40}$/.test(dist.shasum)) return {algorithm: 'sha1', encoding: 'hex', value: dist.shasum}
  return undefined
}

async function readCapped(response: import('undici').Response, cap: number, fail: (reason: string) => never): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of bodyStream(response) as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > cap) fail(`${response.url} sent more than ${cap} bytes`)
    chunks.push(Buffer.from(chunk))
  }
  return Buffer.concat(chunks).toString('utf8')
}
