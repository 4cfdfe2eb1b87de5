import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmod, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import {connect, type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {resolveBrowser} from '../../src/lib/browser/resolve-browser.js'
import {FUNCTION_CHROMIUM, functionChromiumDir} from '../../src/lib/browser/function-chromium.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {npmCacheContentPath} from '../../src/lib/setup/npm-cache.js'
import {readNpmConfig} from '../../src/lib/setup/npm-config.js'
import {downloadPackageFiles} from '../../src/lib/setup/npm-package-download.js'
import {nodeOnlyPath} from '../support/bare-machine.js'

const PACKAGE = {name: '@engine-test/tiny', version: '1.0.0', files: ['bin/tool']}

/** A one-package registry on loopback (http or https): its document names its own tarball URL. */
async function startRegistry(tarball: Buffer, tls?: {key: string; cert: string}): Promise<{url: string; requests: string[]; close(): Promise<void>}> {
  const requests: string[] = []
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    requests.push(request.url ?? '')
    const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`
    if (request.url === '/@engine-test%2ftiny') {
      const document = {name: PACKAGE.name, versions: {[PACKAGE.version]: {dist: {tarball: `${origin}/tiny.tgz`, integrity}}}}
      return response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(document))
    }
    if (request.url === '/tiny.tgz' && !servesNoTarball) return response.writeHead(200, {'content-length': tarball.length}).end(tarball)
    response.writeHead(404).end()
  }
  let servesNoTarball = false
  const server: Server = tls ? createHttpsServer(tls, handle) : createHttpServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** A CONNECT proxy on loopback that records the hosts it tunnels to. */
async function startProxy(): Promise<{url: string; tunnels: string[]; close(): Promise<void>}> {
  const tunnels: string[] = []
  const server = createHttpServer((_request, response) => response.writeHead(405).end())
  server.on('connect', (request: IncomingMessage, client, head: Buffer) => {
    tunnels.push(request.url ?? '')
    const [host, port] = (request.url ?? '').split(':')
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels, close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('downloads use npm\'s network settings and cache', () => {
  let dir: string
  let tarball: Buffer
  let plain: Awaited<ReturnType<typeof startRegistry>>
  let secure: Awaited<ReturnType<typeof startRegistry>>
  let proxy: Awaited<ReturnType<typeof startProxy>>
  let caFile: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-npm-network-'))
    await mkdir(join(dir, 'pkg', 'bin'), {recursive: true})
    await writeFile(join(dir, 'pkg', 'bin', 'tool'), '#!/bin/sh\necho tiny\n')
    const chunks: Buffer[] = []
    for await (const chunk of create({cwd: join(dir, 'pkg'), prefix: 'package', portable: true}, ['bin']) as AsyncIterable<Buffer>) chunks.push(chunk)
    tarball = gzipSync(Buffer.concat(chunks))
    // A certificate for 127.0.0.1 that no CA Node knows signed (a company proxy's, say).
    caFile = join(dir, 'ca.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', caFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {stdio: 'ignore'})
    plain = await startRegistry(tarball)
    secure = await startRegistry(tarball, {key: await readFile(join(dir, 'key.pem'), 'utf8'), cert: await readFile(caFile, 'utf8')})
    proxy = await startProxy()
  })
  afterAll(async () => {
    await Promise.all([plain?.close(), secure?.close(), proxy?.close()])
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  // No NODE_EXTRA_CA_CERTS and an empty HOME: only what each test sets counts.
  const bareEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({HOME: join(dir, 'empty-home'), ...extra})
  const fetchTiny = (registry: string, env: NodeJS.ProcessEnv, into: string) => downloadPackageFiles(PACKAGE, {registry, directory: join(dir, into), env})
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (error: EngineError) => error)

  it('reads npm_config_* over the user npmrc over the global one, with ${VAR} replaced, and the proxy variables as npm does', async () => {
    const home = join(dir, 'config-home')
    await mkdir(join(home, 'prefix', 'etc'), {recursive: true})
    await writeFile(join(home, '.npmrc'), 'registry=https://npm.example.test/\ncafile=${CA_HOME}/company.pem\nstrict-ssl=false\n')
    await writeFile(join(home, 'prefix', 'etc', 'npmrc'), 'registry=https://global.example.test/\nproxy=http://global-proxy.test:3128\ncache=/var/cache/npm\nca[]="-----BEGIN CERTIFICATE-----\\nAAA\\n-----END CERTIFICATE-----"\n')
    const config = readNpmConfig({HOME: home, CA_HOME: '/etc/company', npm_config_prefix: join(home, 'prefix'), NPM_CONFIG_HTTPS_PROXY: 'http://env-proxy.test:8080', NO_PROXY: 'localhost'})
    expect(config).toMatchObject({
      registry: 'https://npm.example.test',
      cafile: '/etc/company/company.pem',
      strictSsl: false,
      proxy: 'http://global-proxy.test:3128',
      httpsProxy: 'http://env-proxy.test:8080',
      noProxy: 'localhost',
      cache: '/var/cache/npm',
      ca: ['-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----'],
    })
    expect(config.sources).toMatchObject({registry: join(home, '.npmrc'), 'https-proxy': 'the environment (npm_config_*)'})
    expect(readNpmConfig({HOME: join(dir, 'nobody'), HTTPS_PROXY: 'http://p.test:1'})).toMatchObject({strictSsl: true, httpsProxy: 'http://p.test:1', cache: join(dir, 'nobody', '.npm')})
  })

  it('goes through npm\'s proxy', async () => {
    const [tool] = await fetchTiny(plain.url, bareEnv({npm_config_proxy: proxy.url}), 'through-proxy')
    expect(await readFile(tool, 'utf8')).toContain('echo tiny')
    expect(proxy.tunnels).toEqual(expect.arrayContaining([plain.url.replace('http://', '')]))
  })

  it('trusts the CAs of npm\'s cafile; without it the error says where to put the CA; strict-ssl=false accepts the certificate', async () => {
    const refused = await failure(fetchTiny(secure.url, bareEnv({}), 'untrusted'))
    expect(refused.code).toBe('DOWNLOAD_FAILED')
    expect(refused.message).toMatch(/DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED/)
    expect(refused.message).toContain('`npm config set cafile <file.pem>`')
    const home = join(dir, 'ca-home')
    await mkdir(home, {recursive: true})
    await writeFile(join(home, '.npmrc'), `cafile=${caFile}\n`)
    const [trusted] = await fetchTiny(secure.url, {HOME: home}, 'trusted')
    expect(await readFile(trusted, 'utf8')).toContain('echo tiny')
    const [lax] = await fetchTiny(secure.url, bareEnv({npm_config_strict_ssl: 'false'}), 'lax')
    expect(await readFile(lax, 'utf8')).toContain('echo tiny')
    const missing = await failure(fetchTiny(secure.url, bareEnv({npm_config_cafile: join(dir, 'nowhere.pem')}), 'no-ca-file'))
    expect(missing).toMatchObject({code: 'INVALID_CONFIG', message: expect.stringContaining(`npm's cafile "${join(dir, 'nowhere.pem')}" (from the environment (npm_config_*)) cannot be read (ENOENT)`)})
  })

  it('copies a tarball npm already has from npm\'s cache (checked against the registry\'s hash) instead of downloading it', async () => {
    const cache = join(dir, 'npm-cache')
    const hash = {algorithm: 'sha512' as const, encoding: 'base64' as const, value: createHash('sha512').update(tarball).digest('base64')}
    const content = npmCacheContentPath(cache, hash)
    await mkdir(dirname(content), {recursive: true})
    await writeFile(content, tarball)
    const before = plain.requests.filter((path) => path === '/tiny.tgz').length
    const [tool] = await fetchTiny(plain.url, bareEnv({npm_config_cache: cache}), 'from-cache')
    expect(await readFile(tool, 'utf8')).toContain('echo tiny')
    expect(plain.requests.filter((path) => path === '/tiny.tgz').length).toBe(before)
    // A cache entry that does not match the hash is not used: the registry's tarball is.
    await writeFile(content, Buffer.concat([tarball, Buffer.from('x')]))
    await fetchTiny(plain.url, bareEnv({npm_config_cache: cache}), 'cache-corrupt')
    expect(plain.requests.filter((path) => path === '/tiny.tgz').length).toBe(before + 1)
  })
})

describe('ENGINE_BROWSER', () => {
  let cache: string
  let fakeShell: string
  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'engine-browser-pref-'))
    // A function Chromium in engine's cache, and a "system" headless shell at its fixed path (both stand-ins: never launched).
    const functionBuild = join(functionChromiumDir({ENGINE_CACHE_DIR: cache}), 'chromium')
    await mkdir(dirname(functionBuild), {recursive: true})
    fakeShell = join(cache, 'system-headless-shell')
    for (const file of [functionBuild, fakeShell]) {
      await writeFile(file, '#!/bin/sh\n')
      await chmod(file, 0o755)
    }
  })
  afterAll(() => rm(cache, {recursive: true, force: true}))
  const pick = (preference: string | undefined, cacheDir = cache) =>
    resolveBrowser({env: {ENGINE_CACHE_DIR: cacheDir, PATH: nodeOnlyPath(), ...(preference && {ENGINE_BROWSER: preference})}, systemHeadlessShell: fakeShell})

  it('auto: the system headless shell before the function Chromium; system: the same; downloaded: never the system browser', async () => {
    expect(await pick(undefined)).toMatchObject({source: 'system-headless-shell', executablePath: fakeShell})
    expect(await pick('system')).toMatchObject({source: 'system-headless-shell'})
    expect(await pick('downloaded')).toMatchObject({source: 'function-chromium', beginFrame: true, version: FUNCTION_CHROMIUM.product, serverlessArgs: expect.arrayContaining(['--single-process'])})
    await expect(pick('downloaded', join(cache, 'empty-cache'))).rejects.toMatchObject({code: 'BROWSER_NOT_FOUND', message: expect.stringContaining("ENGINE_BROWSER=downloaded: engine's own downloads only")})
  })

  it('a value that is no choice is refused by name', async () => {
    await expect(pick('chrome')).rejects.toMatchObject({code: 'INVALID_CONFIG', message: 'ENGINE_BROWSER: "chrome" is not a browser choice; set it to auto, system, downloaded (a path goes in ENGINE_BROWSER_PATH), or unset it'})
  })
})
