import {existsSync} from 'node:fs'
import {mkdtemp, readdir, rm, utimes} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {downloadsDirectory, IN_USE_MS, listDownloads} from '../../src/lib/sandbox/download-cache.js'
import {PAGE_ORIGIN} from '../../src/lib/sandbox/page-origin.js'
import {PageRequests, type RequestNotice} from '../../src/lib/sandbox/page-requests.js'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const MB = 1024 ** 2

/**
 * A "public" host (127.0.0.2 under a host rule) serving: `huge.png`, 200 MB announced by its
 * Content-Length; `endless.png`, no length, bytes until the client goes; `<n>mb.png`, n MB. It
 * counts the bytes it managed to send per path.
 */
let server: Server
let port: number
const sent = new Map<string, number>()
let base: string

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'engine-download-cache-'))
  server = createServer((request, response) => {
    const path = request.url ?? '/'
    const chunk = Buffer.alloc(256 * 1024)
    let written = 0
    const pump = (total: number | undefined) => {
      while (total === undefined || written < total) {
        written += chunk.length
        sent.set(path, written)
        if (!response.write(chunk)) return void response.once('drain', () => pump(total))
      }
      response.end()
    }
    response.on('close', () => sent.set(path, written))
    const sized = /^\/(\d+)mb-\w+\.png$/.exec(path)
    if (path === '/huge.png') {
      response.writeHead(200, {'Content-Type': 'image/png', 'Content-Length': String(200 * MB)})
      pump(200 * MB)
    } else if (path === '/endless.png') {
      response.writeHead(200, {'Content-Type': 'image/png'})
      pump(undefined)
    } else if (sized) {
      response.writeHead(200, {'Content-Type': 'image/png', 'Content-Length': String(Number(sized[1]) * MB)})
      pump(Number(sized[1]) * MB)
    } else response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve))
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await rm(base, {recursive: true, force: true})
})

function pageRequests(cache: string, extra: {downloadAllowanceBytes?: number; budget?: string} = {}) {
  const notices: RequestNotice[] = []
  const requests = new PageRequests({
    html: '<html></html>',
    documentUrl: `${PAGE_ORIGIN}/index.html`,
    projectDir: base,
    network: {publicUrls: true, privateAddresses: false},
    env: {...process.env, ENGINE_CACHE_DIR: cache, ENGINE_HOST_RESOLVER_RULES: 'MAP public.example.test 127.0.0.2', ENGINE_DOWNLOAD_CACHE_MAX: extra.budget ?? ''},
    downloadAllowanceBytes: extra.downloadAllowanceBytes,
    onNotice: (notice) => notices.push(notice),
  })
  return {requests, notices}
}

const url = (path: string) => `http://public.example.test:${port}${path}`

describe('the download cache has bounds', PROCESSES, () => {
  it('a page file over 128 MB is refused by its Content-Length, before its body is read; nothing is cached', async () => {
    const cache = join(base, 'cache-huge')
    const {requests, notices} = pageRequests(cache)
    const answer = await requests.answer(url('/huge.png'))
    expect(answer).toMatchObject({status: 502})
    expect(notices).toEqual([expect.objectContaining({code: 'request-failed', message: expect.stringMatching(/it is 200 MB \(Content-Length\) and a file may be at most 128 MB/)})])
    // The server got to send a few socket buffers at most, not 200 MB.
    expect(sent.get('/huge.png')!).toBeLessThan(16 * MB)
    expect(await listDownloads({ENGINE_CACHE_DIR: cache})).toEqual([])
  })

  it('a file that sends more than its cap without saying so is cut off there and not kept', async () => {
    const cache = join(base, 'cache-endless')
    const {requests, notices} = pageRequests(cache)
    expect(await requests.answer(url('/endless.png'))).toMatchObject({status: 502})
    expect(notices[0].message).toMatch(/it sent more than 128 MB/)
    expect(sent.get('/endless.png')!).toBeLessThan(160 * MB)
    expect(existsSync(downloadsDirectory({ENGINE_CACHE_DIR: cache})) ? await readdir(downloadsDirectory({ENGINE_CACHE_DIR: cache})) : []).toEqual([])
  })

  it('one render downloads at most its allowance in all', async () => {
    const cache = join(base, 'cache-allowance')
    const {requests, notices} = pageRequests(cache, {downloadAllowanceBytes: 3 * MB})
    expect(await requests.answer(url('/2mb-a.png'))).toMatchObject({status: 200})
    expect(await requests.answer(url('/2mb-b.png'))).toMatchObject({status: 502})
    expect(notices[0].message).toMatch(/it is 2 MB \(Content-Length\) and the render has downloaded 2 MB of the 3 MB one render may/)
  })

  it('past its budget the cache drops the least recently used files (not those in use), and engine cache ls|clean show and empty it', async () => {
    const cache = join(base, 'cache-lru')
    const env = {ENGINE_CACHE_DIR: cache}
    const first = pageRequests(cache, {budget: '5M'})
    for (const name of ['2mb-old.png', '2mb-used.png']) expect(await first.requests.answer(url(`/${name}`))).toMatchObject({status: 200})
    // Both were used long ago; then a later render uses one of them again.
    const old = new Date(Date.now() - IN_USE_MS - 60_000)
    for (const entry of await listDownloads(env)) await utimes(`${entry.path}.json`, old, old)
    const second = pageRequests(cache, {budget: '5M'})
    expect(await second.requests.answer(url('/2mb-used.png'))).toMatchObject({status: 200})
    expect(await second.requests.answer(url('/2mb-new.png'))).toMatchObject({status: 200})
    const kept = (await listDownloads(env)).map((entry) => entry.url)
    expect(kept.sort()).toEqual([url('/2mb-new.png'), url('/2mb-used.png')].sort())

    const listed = await runCli(['cache', 'ls', '--json'], {env})
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toMatchObject({totalBytes: 4 * MB, entries: [{url: url('/2mb-used.png'), bytes: 2 * MB}, {url: url('/2mb-new.png'), bytes: 2 * MB}]})
    const cleaned = await runCli(['cache', 'clean', '--json'], {env})
    expect(JSON.parse(cleaned.stdout)).toEqual({removed: 2, bytes: 4 * MB, downloads: {removed: 2, bytes: 4 * MB}, renders: {removed: 0, bytes: 0}})
    expect(await listDownloads(env)).toEqual([])
    const bad = await runCli(['cache', 'clean', '--unused-for', 'soon'], {env})
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/--unused-for: "soon" is not an age/)
  })
})
