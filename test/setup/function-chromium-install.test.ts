import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdtemp, readdir, rm} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FUNCTION_CHROMIUM, functionChromiumDir, installedPackageBin} from '../../src/lib/browser/function-chromium.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {installFunctionChromium} from '../../src/lib/setup/install-function-chromium.js'
import {probeVideoStream} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'

/**
 * A loopback npm registry serving the pinned @sparticuz/chromium: its real package files
 * (package.json and the brotli builds of this checkout's node_modules) in an npm tarball, with the
 * integrity hash the registry publishes.
 */
async function startRegistry(): Promise<{url: string; requests: string[]; tarball: {bytes: Buffer}; close(): Promise<void>}> {
  const root = dirname(installedPackageBin(join(REPO_ROOT, 'package.json'))!)
  const chunks: Buffer[] = []
  for await (const chunk of create({cwd: root, prefix: 'package', portable: true}, ['package.json', 'bin/chromium.br', 'bin/swiftshader.tar.br']) as AsyncIterable<Buffer>) chunks.push(chunk)
  const tarball = {bytes: gzipSync(Buffer.concat(chunks), {level: 1})}
  const integrity = `sha512-${createHash('sha512').update(tarball.bytes).digest('base64')}`
  const requests: string[] = []
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(request.url ?? '/')
    requests.push(path)
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const send = (status: number, body: Buffer | string) => {
      response.writeHead(status, {'content-length': Buffer.byteLength(body)})
      response.end(body)
    }
    if (path === `/${FUNCTION_CHROMIUM.package}`) {
      const dist = {tarball: `${origin}/tarballs/chromium.tgz`, integrity}
      return send(200, JSON.stringify({name: FUNCTION_CHROMIUM.package, versions: {[FUNCTION_CHROMIUM.version]: {dist}}}))
    }
    if (path === '/tarballs/chromium.tgz') return send(200, tarball.bytes)
    send(404, 'not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    tarball,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

describe("the serverless function's Chromium from an npm registry (loopback registry)", {timeout: 180_000}, () => {
  let registry: Awaited<ReturnType<typeof startRegistry>>
  let dir: string
  beforeAll(async () => {
    registry = await startRegistry()
    dir = await mkdtemp(join(tmpdir(), 'engine-function-chromium-'))
  }, 120_000)
  afterAll(async () => {
    await registry?.close()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('refuses a tarball that does not match the registry hash, and leaves nothing in the cache', async () => {
    const env = {ENGINE_CACHE_DIR: join(dir, 'forged')}
    const real = registry.tarball.bytes
    registry.tarball.bytes = Buffer.concat([real.subarray(0, real.length - 1), Buffer.from([real[real.length - 1] ^ 1])])
    try {
      const error = (await installFunctionChromium({registry: registry.url, env}).catch((caught: unknown) => caught)) as EngineError
      expect(error.code).toBe('DOWNLOAD_FAILED')
      expect(error.message).toContain(`${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}`)
      expect(error.message).toMatch(/does not match the registry's sha512/)
      expect(existsSync(functionChromiumDir(env))).toBe(false)
      expect(await readdir(join(dir, 'forged', 'browsers'))).toEqual([])
    } finally {
      registry.tarball.bytes = real
    }
  })

  it('`engine browser install --function` installs it into the cache, and --profile deterministic renders with it', async () => {
    const env = {ENGINE_CACHE_DIR: join(dir, 'good'), ENGINE_NPM_REGISTRY: registry.url}
    registry.requests.length = 0
    const installed = await runCli(['browser', 'install', '--function'], {env, timeoutMs: 120_000})
    expect(installed.code, installed.stderr).toBe(0)
    const executablePath = join(functionChromiumDir(env), 'chromium')
    expect(installed.stdout).toContain(`${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version} (${FUNCTION_CHROMIUM.product}): ${executablePath}`)
    expect(registry.requests).toEqual([`/${FUNCTION_CHROMIUM.package}`, '/tarballs/chromium.tgz'])
    expect((await readdir(functionChromiumDir(env))).sort()).toEqual(expect.arrayContaining(['chromium', 'libEGL.so', 'libGLESv2.so', 'libvk_swiftshader.so']))

    const output = join(dir, 'profile.mp4')
    const rendered = await runCli(['render', join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html'), '--profile', 'deterministic', '--json', '-o', output], {env, timeoutMs: 120_000})
    expect(rendered.code, rendered.stderr).toBe(0)
    expect(rendered.stderr).not.toMatch(/profile-browser-mismatch|captures with the serverless function's build/)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264'})
  })
})
