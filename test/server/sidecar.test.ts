import {spawn} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {request, type IncomingMessage} from 'node:http'
import {createServer as createTcpServer, connect, type Server as TcpServer, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {startServer, type RunningServer} from '../../src/lib/server/start-server.js'
import type {StreamEvent} from '../../src/lib/server/stream-events.js'
import {SseParser} from '../../src/lib/server-client/parse-sse.js'
import {probeVideoStream} from '../support/media.js'
import {rawRequest} from '../security/support/raw-http.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {eventually} from './support/test-server.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const small = {format: 'mp4', fps: 10, quality: 'draft', workers: 1} as const
/** 3 s at 10 fps: long enough to drop a connection mid-capture, short enough for the suite. */
const SHORT_OF_LONG = {...small, frames: '0-29'}

interface Received {
  id?: string
  event: StreamEvent
}

/**
 * An SSE request with node:http, read event by event; `until` decides when the test drops the
 * connection (destroying the socket, as a network failure would), else it runs to the final event.
 */
function sse(url: string, options: {method?: string; body?: unknown; headers?: Record<string, string>; until?: (received: Received) => boolean}) {
  return new Promise<{status: number; received: Received[]; dropped: boolean; body?: string}>((resolve, reject) => {
    const received: Received[] = []
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const req = request(url, {method: options.method ?? 'GET', headers: {...(body && {'Content-Type': 'application/json'}), ...options.headers}, timeout: 120_000}, (res: IncomingMessage) => {
      res.setEncoding('utf8')
      if (res.statusCode !== 200) {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({status: res.statusCode ?? 0, received, dropped: false, body: text}))
        return
      }
      const parser = new SseParser()
      res.on('data', (chunk: string) => {
        for (const message of parser.feed(chunk)) {
          const entry = {id: message.id, event: JSON.parse(message.data) as StreamEvent}
          received.push(entry)
          if (options.until?.(entry)) {
            req.destroy()
            resolve({status: 200, received, dropped: true})
          }
        }
      })
      res.on('end', () => resolve({status: 200, received, dropped: false}))
      res.on('error', () => {})
    })
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)))
    req.on('error', (error) => (received.length > 0 ? undefined : reject(error)))
    req.end(body)
  })
}

const capturing = ({event}: Received) => event.type === 'progress' && event.stage === 'capture' && event.frame > 0

describe('engine serve as a sidecar', () => {
  let server: RunningServer
  let base: string

  beforeAll(async () => {
    server = await startServer(await resolveServerSettings({port: 0, root: FIXTURES, maxConcurrentRenders: 2}, {}))
    base = server.url.replace(/\/$/, '')
  })
  afterAll(() => server?.close())

  it('outputs answer Range (206, suffix, 416), HEAD, ETag and Last-Modified with conditional requests (304, If-Range)', async () => {
    const {received} = await sse(`${base}/render/stream`, {method: 'POST', body: {composition: 'color.html', ...small}})
    const final = received.at(-1)!.event
    expect(final).toMatchObject({type: 'complete', totalFrames: 10})
    const url = `${base}${(final as Extract<StreamEvent, {type: 'complete'}>).outputUrl}`

    const whole = await fetch(url)
    expect(whole.status).toBe(200)
    const bytes = Buffer.from(await whole.arrayBuffer())
    expect(bytes.length).toBe((final as Extract<StreamEvent, {type: 'complete'}>).bytes)
    const etag = whole.headers.get('etag')!
    expect(etag).toMatch(/^W\/".+"$/)
    expect(whole.headers.get('accept-ranges')).toBe('bytes')
    expect(whole.headers.get('content-type')).toBe('video/mp4')
    expect(whole.headers.get('cache-control')).toBe('private, no-cache')
    expect(whole.headers.get('last-modified')).toBeTruthy()

    const part = await fetch(url, {headers: {Range: 'bytes=100-299'}})
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 100-299/${bytes.length}`)
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(100, 300))
    const tail = await fetch(url, {headers: {Range: 'bytes=-64'}})
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 64))
    const past = await fetch(url, {headers: {Range: `bytes=${bytes.length + 10}-`}})
    expect(past.status).toBe(416)
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`)

    // node:http, since fetch marks a request with its own conditional headers Cache-Control: no-cache (the Fetch standard), which asks for the full body.
    expect((await rawRequest(url, {headers: {'If-None-Match': etag}})).status).toBe(304)
    expect((await rawRequest(url, {headers: {'If-Modified-Since': whole.headers.get('last-modified')!}})).status).toBe(304)
    const stale = await rawRequest(url, {headers: {Range: 'bytes=0-9', 'If-Range': 'W/"something-else"'}})
    expect([stale.status, stale.headers['content-length']]).toEqual([200, String(bytes.length)])
    expect((await rawRequest(url, {headers: {Range: 'bytes=0-9', 'If-Range': etag}})).status).toBe(206)
    const head = await fetch(url, {method: 'HEAD'})
    expect([head.status, head.headers.get('content-length'), (await head.arrayBuffer()).byteLength]).toEqual([200, String(bytes.length), 0])
  })

  it('a dropped stream leaves the render running; GET /render/:id shows it and /events resumes after Last-Event-ID to the end', async () => {
    const first = await sse(`${base}/render/stream`, {method: 'POST', body: {composition: 'long.html', ...SHORT_OF_LONG}, until: capturing})
    expect(first.dropped).toBe(true)
    const ids = first.received.map(({id}) => Number(id))
    expect(ids).toEqual(ids.map((_, index) => index + 1))
    const {requestId} = first.received[0].event
    const lastId = ids.at(-1)!

    const status = (await (await fetch(`${base}/render/${requestId}`)).json()) as {status: string; lastEventId: number}
    expect(status).toMatchObject({requestId, status: expect.stringMatching(/^(rendering|complete)$/)})
    expect(status.lastEventId).toBeGreaterThanOrEqual(lastId)

    const resumed = await sse(`${base}/render/${requestId}/events`, {headers: {'Last-Event-ID': String(lastId)}})
    expect(resumed.status).toBe(200)
    const resumedIds = resumed.received.map(({id}) => Number(id))
    expect(resumedIds[0]).toBeGreaterThan(lastId)
    expect([...resumedIds].sort((a, b) => a - b)).toEqual(resumedIds)
    expect(resumed.received.at(-1)!.event).toMatchObject({type: 'complete', requestId, totalFrames: 30})
    expect(await (await fetch(`${base}/render/${requestId}`)).json()).toMatchObject({status: 'complete', outputUrl: `/render/${requestId}/output`})

    // From the start, a finished request's events are the lifecycle, the newest progress between them, and the end.
    const replay = await sse(`${base}/render/${requestId}/events`, {})
    expect(replay.received.map(({event}) => event.type)).toEqual(['started', 'progress', 'start', 'progress', 'complete'])
    expect(replay.received[3].event).toMatchObject({stage: 'assemble', frame: 30})
  })

  it('cancelOnDisconnect: true cancels the render when its stream drops', async () => {
    const dropped = await sse(`${base}/render/stream`, {method: 'POST', body: {composition: 'long.html', ...SHORT_OF_LONG, cancelOnDisconnect: true}, until: capturing})
    const {requestId} = dropped.received[0].event
    await eventually(async () => expect(await (await fetch(`${base}/render/${requestId}`)).json()).toMatchObject({status: 'cancelled', error: {code: 'CANCELLED'}}), 20_000)
    expect((await fetch(`${base}/render/${requestId}/output`)).status).toBe(404)
  })

  it('refuses a Last-Event-ID that is not an id of the request, and unknown requests, naming them', async () => {
    const {received} = await sse(`${base}/render/stream`, {method: 'POST', body: {composition: 'color.html', ...small}})
    const {requestId} = received[0].event
    for (const value of ['abc', '-1', '1e3', '999999', '9'.repeat(40)]) {
      const answer = await sse(`${base}/render/${requestId}/events`, {headers: {'Last-Event-ID': value}})
      expect(answer.status, value).toBe(400)
      expect(JSON.parse(answer.body!).error).toMatchObject({code: 'INVALID_REQUEST', details: {field: 'Last-Event-ID'}})
    }
    const byQuery = await sse(`${base}/render/${requestId}/events?lastEventId=${received.length - 1}`, {})
    expect(byQuery.received.map(({id}) => Number(id))).toEqual([received.length])
    // Resumed after the final event: nothing can follow, so 204 (an EventSource stops
    // reconnecting), never a stream of heartbeats that does not end.
    const afterFinal = await fetch(`${base}/render/${requestId}/events`, {headers: {'Last-Event-ID': String(received.length)}, signal: AbortSignal.timeout(30_000)})
    expect(afterFinal.status).toBe(204)
    expect(await afterFinal.text()).toBe('')
    for (const path of ['/render/00000000-0000-0000-0000-000000000000', '/render/nope/events']) {
      const answer = await fetch(base + path)
      expect(answer.status, path).toBe(404)
      expect(((await answer.json()) as {error: {code: string}}).error.code).toBe('NOT_FOUND')
    }
  })
})

describe('engine preview sends files with the same HTTP stack', () => {
  let preview: PreviewServer

  beforeAll(async () => {
    preview = await startPreviewServer({composition: join(FIXTURES, 'color.html'), port: 0, fps: {num: 10, den: 1}})
  })
  afterAll(() => preview?.close())

  it('a project file answers Range and ETag, and 304 while it is unchanged', async () => {
    const url = new URL('test/server/fixtures/long.html', preview.url).href
    const whole = await fetch(url)
    const text = await whole.text()
    expect(whole.headers.get('content-type')).toMatch(/^text\/html/)
    expect(whole.headers.get('cache-control')).toBe('no-cache')
    const part = await fetch(url, {headers: {Range: 'bytes=0-14'}})
    expect([part.status, await part.text()]).toEqual([206, text.slice(0, 15)])
    expect((await rawRequest(url, {headers: {'If-None-Match': whole.headers.get('etag')!}})).status).toBe(304)
  })
})

/** A TCP relay to the server that cuts the first connection carrying a capture progress event, once. */
async function flakyRelay(target: string): Promise<{url: string; cuts: () => number; close: () => Promise<void>}> {
  const {port} = new URL(target)
  let cuts = 0
  const sockets = new Set<Socket>()
  const relay: TcpServer = createTcpServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1')
    sockets.add(client).add(upstream)
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      if (cuts === 0 && /"type":"progress","requestId":"[^"]+","stage":"capture","frame":[1-9]/.test(chunk.toString())) {
        cuts++
        client.destroy()
        upstream.destroy()
        return
      }
      client.write(chunk)
    })
    upstream.on('end', () => client.end())
    for (const socket of [client, upstream]) socket.on('error', () => {})
    client.on('close', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
  const address = relay.address() as {port: number}
  return {
    url: `http://127.0.0.1:${address.port}`,
    cuts: () => cuts,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => relay.close(resolve))
    },
  }
}

describe('engine render --server over a connection that breaks', () => {
  let server: RunningServer
  let scratch: string

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-sidecar-'))
    // The relay has its own port, which the client puts in Host: allowed by name, any port.
    server = await startServer(await resolveServerSettings({port: 0, root: FIXTURES, maxConcurrentRenders: 1, allowedHosts: ['127.0.0.1']}, {}))
  })
  afterAll(async () => {
    await server?.close()
    await rm(scratch, {recursive: true, force: true})
  })

  it('resumes the stream where it broke and downloads the whole render', async () => {
    const relay = await flakyRelay(server.url)
    try {
      const output = join(scratch, 'long.mp4')
      const child = spawn(
        process.execPath,
        [join(REPO_ROOT, 'bin/run.js'), 'render', 'long.html', '--server', relay.url, '-o', output, '--fps', '10', '--quality', 'draft', '--frames', '0-29', '--json'],
        {cwd: FIXTURES, stdio: ['ignore', 'pipe', 'pipe']},
      )
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk) => (stdout += chunk))
      child.stderr.on('data', (chunk) => (stderr += chunk))
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect(code, stderr).toBe(0)
      expect(relay.cuts()).toBe(1)
      expect(stdout).toContain('"type":"done"')
      expect(Number((await probeVideoStream(output)).nb_read_frames)).toBe(30)
    } finally {
      await relay.close()
    }
  })

  it('Ctrl-C (SIGINT) cancels the render on the server: the client says so with DELETE', async () => {
    // 1,800 frames (30 s at 60 fps): a loaded machine cannot finish them between the first progress event and the signal.
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/run.js'), 'render', 'long.html', '--server', server.url, '-o', join(scratch, 'stopped.mp4'), '--fps', '60', '--quality', 'draft', '--json'], {
      cwd: FIXTURES,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    await eventually(() => expect(stdout).toMatch(/"type":"progress"[^\n]*"stage":"capture"/), 60_000)
    child.kill('SIGINT')
    await new Promise((resolve) => child.on('close', resolve))
    await eventually(async () => expect(server.service.status()).toMatchObject({activeRenders: 0, queuedRenders: 0}), 20_000)
    expect(stdout).not.toContain('"type":"done"')
  })
})
