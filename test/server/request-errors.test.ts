import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FakeRenderer} from './support/fake-render.js'
import {ofType, openStream, startTestServer, type TestServer} from './support/test-server.js'

let testServer: TestServer
let outside: string
const fake = new FakeRenderer()

beforeAll(async () => {
  testServer = await startTestServer({maxConcurrentRenders: 1, maxQueue: 1}, {render: fake.render, maxBodyBytes: 64 * 1024})
  outside = await mkdtemp(join(tmpdir(), 'engine-serve-outside-'))
  await writeFile(join(outside, 'secret.html'), '<html></html>')
  await mkdir(join(testServer.root, 'sub'))
  await symlink(join(outside, 'secret.html'), join(testServer.root, 'sub', 'link.html'))
  await symlink(outside, join(testServer.root, 'linked-dir'))
})

afterAll(async () => {
  await testServer.close()
  await rm(outside, {recursive: true, force: true})
})

/** Raw fetch: these tests look at statuses and bodies the client helpers would turn into errors. */
async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(new URL('/render/stream', testServer.connection.url), {
    method: 'POST',
    headers: {'Content-Type': 'application/json', ...headers},
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return {status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as {error: {code: string; message: string}}}
}

describe('request errors of the producer server', () => {
  it('400 names the body field that fails validation', async () => {
    const cases: [unknown, RegExp][] = [
      [{composition: 'comp.html', fps: 'fast'}, /body field "fps": "fast" is not a frame rate/],
      [{composition: 'comp.html', fps: 500}, /body field "fps".*out of range/],
      [{composition: 'comp.html', crf: 60}, /body field "crf"/],
      [{composition: 'comp.html', crf: 20, videoBitrate: '2M'}, /body field "crf" and body field "videoBitrate" cannot be combined/],
      [{composition: 'comp.html', format: 'avi'}, /body field "format": "avi" is not a known format; use one of mp4, mov, webm, gif, png-sequence/],
      [{composition: 'comp.html', output: '/etc/passwd'}, /body field "output": not accepted/],
      [{composition: 'comp.html', variables: ['x']}, /body field "variables"/],
      [{composition: 'comp.html', pageErrors: 'ignore'}, /body field "pageErrors": "ignore" is invalid/],
      [{composition: 'comp.html', html: '<html></html>'}, /exactly one of "composition".*or "html"/],
      [{}, /exactly one of/],
      [[1, 2], /the body must be a JSON object/],
      ['{"composition": ', /not valid JSON/],
    ]
    for (const [body, message] of cases) {
      const response = await post(body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.type).toMatch(/^application\/json/)
      expect(response.body.error.code).toBe('INVALID_REQUEST')
      expect(response.body.error.message).toMatch(message)
    }
  })

  it('403 for a composition outside the root, by ../, absolute path or symlink; 404 when missing', async () => {
    for (const composition of ['../secret.html', join(outside, 'secret.html'), 'sub/link.html', 'linked-dir/secret.html', 'sub/../../x.html']) {
      const response = await post({composition})
      expect(response.status, composition).toBe(403)
      expect(response.body.error).toMatchObject({code: 'PATH_OUTSIDE_ROOT', message: expect.stringContaining('outside the server root')})
    }
    const missing = await post({composition: 'nope.html'})
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('COMPOSITION_NOT_FOUND')
    const directory = await post({composition: 'sub'})
    expect(directory.status).toBe(404)
    expect((await post({composition: join(testServer.root, 'comp.html'), format: 'avi'})).status).toBe(400)
  })

  it('413 for a body over the limit', async () => {
    const response = await post({composition: 'comp.html', variables: {big: 'x'.repeat(100 * 1024)}})
    expect(response.status).toBe(413)
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE')
    const chunked = await fetch(new URL('/render/stream', testServer.connection.url), {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: new Blob([JSON.stringify({html: 'y'.repeat(100 * 1024)})]).stream(),
      duplex: 'half',
    } as RequestInit)
    expect(chunked.status).toBe(413)
  })

  it('404 for unknown routes and render ids, 409 for the output of an unfinished render, 429 when the queue is full', async () => {
    const unknownRoute = await fetch(new URL('/nope', testServer.connection.url))
    expect(unknownRoute.status).toBe(404)
    expect(await unknownRoute.json()).toMatchObject({error: {code: 'NOT_FOUND', details: null}})
    for (const [method, path] of [['GET', '/render/abc/output'], ['DELETE', '/render/abc'], ['GET', '/render/abc/output/frame.png']]) {
      const response = await fetch(new URL(path, testServer.connection.url), {method})
      expect(response.status, `${method} ${path}`).toBe(404)
    }

    const running = openStream(testServer.connection, {composition: 'comp.html', variables: {id: 'a'}})
    const {requestId} = await running.waitFor(ofType('started'))
    const early = await fetch(new URL(`/render/${requestId}/output`, testServer.connection.url))
    expect(early.status).toBe(409)
    expect(await early.json()).toMatchObject({error: {code: 'OUTPUT_NOT_READY'}})
    const queued = openStream(testServer.connection, {composition: 'comp.html', variables: {id: 'b'}})
    await queued.waitFor(ofType('queued'))
    const full = await post({composition: 'comp.html'})
    expect(full.status).toBe(429)
    expect(full.body.error).toMatchObject({code: 'QUEUE_FULL', message: expect.stringContaining('--max-queue 1')})
    await fake.finish('a')
    await running.done
    await queued.waitFor(ofType('started'))
    await fake.finish('b')
    await queued.done
  })

  it('a strict-variables failure arrives as an error event naming its code', async () => {
    const failing = new FakeRenderer()
    const server = await startTestServer({}, {
      render: async (request) => {
        if (request.options.strictVariables) {
          const {EngineError} = await import('../../src/lib/errors/engine-error.js')
          throw new EngineError('STRICT_VARIABLES', 'undeclared variable "nope"')
        }
        return failing.render(request)
      },
    })
    try {
      const stream = openStream(server.connection, {composition: 'comp.html', strictVariables: true, variables: {nope: 1}})
      expect(await stream.done).toMatchObject({type: 'error', code: 'STRICT_VARIABLES', message: 'undeclared variable "nope"'})
      expect(stream.events.map((event) => event.type)).toEqual(['started', 'error'])
    } finally {
      await server.close()
    }
  })
})
