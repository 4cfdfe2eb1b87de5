import {execFile} from 'node:child_process'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {mkdtemp, readdir, readFile, rm, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * `engine render --server` against a producer server that lies: it names an output on another
 * host, redirects the download there, or sends a download other than the one it announced. The
 * other host (127.0.0.2) records every request, and the token must never reach it.
 */

const TOKEN = 'client-secret-token'
const FRAMES = 10

interface Recorded {
  url: string
  authorization?: string
}

let scratch: string
let video: Buffer
let elsewhere: {server: Server; origin: string; requests: Recorded[]}
let producer: {server: Server; url: string; requests: Recorded[]}
/** What the fake producer does for the current test. */
let behaviour: {outputUrl: (producerUrl: string) => string; bytes: (size: number) => number; totalFrames: number; redirect?: boolean}

async function listen(host: string, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return server
}

const address = (server: Server, host: string) => `http://${host}:${(server.address() as AddressInfo).port}`

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'engine-client-origin-'))
  const source = join(scratch, 'source.mp4')
  await promisify(execFile)('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `testsrc=size=320x180:rate=10:duration=${FRAMES / 10}`, '-pix_fmt', 'yuv420p', '-c:v', 'libx264', source])
  video = await readFile(source)

  const elsewhereRequests: Recorded[] = []
  const elsewhereServer = await listen('127.0.0.2', (req, res) => {
    elsewhereRequests.push({url: req.url ?? '', authorization: req.headers.authorization})
    res.writeHead(200, {'Content-Type': 'video/mp4'})
    res.end(video)
  })
  elsewhere = {server: elsewhereServer, origin: address(elsewhereServer, '127.0.0.2'), requests: elsewhereRequests}

  const producerRequests: Recorded[] = []
  const producerServer = await listen('127.0.0.1', (req, res) => {
    producerRequests.push({url: req.url ?? '', authorization: req.headers.authorization})
    if (req.method === 'POST' && req.url === '/render/stream') {
      req.resume()
      const complete = {
        type: 'complete',
        requestId: 'r1',
        outputUrl: behaviour.outputUrl(producer.url),
        format: 'mp4',
        bytes: behaviour.bytes(video.length),
        duration: 1,
        totalFrames: behaviour.totalFrames,
        hdr: null,
        renderMs: 5,
        timings: {compileMs: 1, captureMs: 2, assembleMs: 2, totalMs: 5},
      }
      res.writeHead(200, {'Content-Type': 'text/event-stream'})
      res.end(`data: ${JSON.stringify({type: 'started', requestId: 'r1'})}\n\ndata: ${JSON.stringify(complete)}\n\n`)
    } else if (behaviour.redirect) {
      res.writeHead(302, {Location: `${elsewhere.origin}/redirected`})
      res.end()
    } else {
      res.writeHead(200, {'Content-Type': 'video/mp4', 'Content-Length': video.length})
      res.end(video)
    }
  })
  producer = {server: producerServer, url: address(producerServer, '127.0.0.1'), requests: producerRequests}
}, 60_000)

afterAll(async () => {
  for (const server of [producer?.server, elsewhere?.server]) await new Promise((resolve) => server?.close(resolve))
  await rm(scratch, {recursive: true, force: true})
})

beforeEach(() => {
  behaviour = {outputUrl: () => '/render/r1/output', bytes: (size) => size, totalFrames: FRAMES}
  producer.requests.length = 0
  elsewhere.requests.length = 0
})

async function renderVia(name: string) {
  const dir = await mkdtemp(join(scratch, `${name}-`))
  const output = join(dir, 'out.mp4')
  const result = await runCli(['render', 'comp.html', '--server', producer.url, '-o', output], {env: {ENGINE_SERVER_TOKEN: TOKEN}})
  return {...result, output, leftovers: await readdir(dir)}
}

describe('engine render --server trusts only its own server', PROCESSES, () => {
  it('keeps a download that matches the complete event, sending the token to the server', async () => {
    const result = await renderVia('good')
    expect(result.stderr).not.toContain('error [')
    expect(result.code).toBe(0)
    expect((await stat(result.output)).size).toBe(video.length)
    expect(result.leftovers).toEqual(['out.mp4'])
    expect(producer.requests.map((request) => request.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`])
  })

  it('refuses an outputUrl on another origin: no request, and no token, reaches that host', async () => {
    for (const outputUrl of [`${elsewhere.origin}/steal`, `//127.0.0.2:${new URL(elsewhere.origin).port}/steal`, 'http://127.0.0.1:1/other-port']) {
      behaviour.outputUrl = () => outputUrl
      const result = await renderVia('foreign')
      expect(result.code, outputUrl).toBe(1)
      expect(result.stderr).toMatch(/error \[SERVER_RESPONSE_INVALID\]: the producer server named .* which is not on its own origin .*refused \(the token is sent only to the server/)
      expect(result.leftovers).toEqual([])
    }
    expect(elsewhere.requests).toEqual([])
  })

  it('does not follow a redirect of the download to another host', async () => {
    behaviour.redirect = true
    const result = await renderVia('redirect')
    expect(result.code).toBe(1)
    expect(result.leftovers).toEqual([])
    expect(elsewhere.requests.filter((request) => request.authorization !== undefined)).toEqual([])
    expect(elsewhere.requests).toEqual([])
  })

  it('refuses a download whose size or frame count differs from the complete event, leaving nothing at --output', async () => {
    behaviour.bytes = (size) => size + 10
    const bytes = await renderVia('bytes')
    expect(bytes.code).toBe(1)
    expect(bytes.stderr).toMatch(new RegExp(`error \\[SERVER_RESPONSE_INVALID\\]: the download of .*out\\.mp4 has ${video.length} bytes, but the server announced ${video.length + 10}; nothing was kept`))
    expect(bytes.leftovers).toEqual([])

    behaviour.bytes = (size) => size
    behaviour.totalFrames = FRAMES + 2
    const frames = await renderVia('frames')
    expect(frames.code).toBe(1)
    expect(frames.stderr).toMatch(new RegExp(`has ${FRAMES} frames, but the server announced ${FRAMES + 2}`))
    expect(frames.leftovers).toEqual([])
  })
})
