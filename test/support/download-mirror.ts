import {createHash} from 'node:crypto'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {create} from 'tar'
import yazl from 'yazl'
import {PINNED_BROWSER} from '../../src/lib/browser/pinned-browser.js'
import {staticFfmpegBuild} from '../../src/lib/encode/static-ffmpeg.js'
import {REPO_ROOT} from './run-cli.js'

/** The Debian headless shell's real binary: /usr/bin/chromium-headless-shell is only a wrapper around it. */
export const SYSTEM_SHELL_BINARY = '/usr/lib/chromium/chromium-headless-shell'

export interface DownloadMirror {
  /** Base URL for ENGINE_BROWSER_MIRROR. */
  browserBaseUrl: string
  /** Registry URL for ENGINE_NPM_REGISTRY. */
  registry: string
  /** A folder that has no pinned ffmpeg archive (404): the pinned download fails as offline, at once. */
  ffmpegMirror: string
  /** Every path asked for, in order. */
  requests: string[]
  /** Tarball bytes served per file ('ffmpeg', 'ffprobe') in place of the real ones: a test sets one to serve a forgery (the documents keep the published hash). */
  tarballs: Map<string, Buffer>
  close(): Promise<void>
}

/**
 * A loopback stand-in for the two download hosts, serving the layouts the real ones use:
 * Chrome for Testing (`<base>/<build>/linux64/chrome-headless-shell-linux64.zip`) and an npm
 * registry (package documents with integrity hashes, and tarballs). The npm packages are the real
 * static builds, packed from this checkout's node_modules (installed as optional dependencies).
 * The browser archive cannot be the real one here (no internet): it holds a launcher of this
 * machine's headless shell, at the path and with the mode the real archive has.
 */
export async function startDownloadMirror(): Promise<DownloadMirror> {
  const build = staticFfmpegBuild()!
  const tarballs = new Map<string, Buffer>()
  const zip = await browserArchive()
  const requests: string[] = []
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(request.url ?? '/')
    requests.push(path)
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const send = (status: number, body: Buffer | string, type = 'application/octet-stream') => {
      response.writeHead(status, {'content-type': type, 'content-length': Buffer.byteLength(body)})
      response.end(body)
    }
    if (path === `/chrome/${PINNED_BROWSER.buildId}/linux64/chrome-headless-shell-linux64.zip`) return send(200, zip)
    for (const file of ['ffmpeg', 'ffprobe'] as const) {
      const pkg = build[file]
      if (path === `/npm/${pkg.name}`) {
        return void staticBuildTarball(file).then(({integrity}) => {
          const dist = {tarball: `${origin}/npm/tarballs/${file}.tgz`, integrity}
          const document = {name: pkg.name, versions: {[pkg.version]: {name: pkg.name, version: pkg.version, dist}}}
          send(200, JSON.stringify(document), 'application/json')
        })
      }
      if (path === `/npm/tarballs/${file}.tgz`) return void staticBuildTarball(file).then(({bytes}) => send(200, tarballs.get(file) ?? bytes))
    }
    send(404, 'not found', 'text/plain')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    browserBaseUrl: `${origin}/chrome`,
    registry: `${origin}/npm`,
    ffmpegMirror: `${origin}/ffmpeg`,
    requests,
    tarballs,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

const packed = new Map<'ffmpeg' | 'ffprobe', Promise<{bytes: Buffer; integrity: string}>>()

/**
 * The npm tarball of this checkout's static ffmpeg or ffprobe package and its published hash, packed
 * when a mirror is first asked for it (most files that start a mirror never are) and once per test
 * process: 140 MB of binaries take about 2 CPU-seconds to pack.
 */
export function staticBuildTarball(file: 'ffmpeg' | 'ffprobe'): Promise<{bytes: Buffer; integrity: string}> {
  let tarball = packed.get(file)
  if (!tarball) {
    tarball = packPackage(join(REPO_ROOT, 'node_modules', staticFfmpegBuild()![file].name)).then((bytes) => ({bytes, integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`}))
    packed.set(file, tarball)
  }
  return tarball
}

/** An npm tarball of a package folder: its files under `package/`, gzipped (fast level: a test fixture). */
async function packPackage(directory: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  const stream = create({cwd: directory, prefix: 'package', portable: true}, ['.'])
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk)
  return gzipSync(Buffer.concat(chunks), {level: 1})
}

async function browserArchive(): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  const launcher = `#!/bin/sh\nexec ${SYSTEM_SHELL_BINARY} "$@"\n`
  zip.addBuffer(Buffer.from(launcher), 'chrome-headless-shell-linux64/chrome-headless-shell', {mode: 0o100755})
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk)
  return Buffer.concat(chunks)
}
