import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {errorCode, rawRequest} from './support/raw-http.js'
import {compositionHtml, makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {PROCESSES} from '../support/timeouts.js'

const ALLOWED_ORIGIN = 'http://app.example.test:5173'
const RENDER_BODY = JSON.stringify({composition: 'comp.html', fps: 5})

let serve: ServeProcess
let dirs: ServeRoot
let port: string

beforeAll(async () => {
  dirs = await makeServeRoot({'comp.html': compositionHtml(320, 180, 1)})
  serve = await spawnServe([
    '--root',
    dirs.root,
    '--output-dir',
    dirs.outputs,
    '--allowed-host',
    'render.example.test',
    '--allow-origin',
    ALLOWED_ORIGIN,
  ])
  port = new URL(serve.url).port
}, 60_000)

afterAll(async () => {
  await serve?.stop()
  await dirs?.remove()
})

const at = (path: string) => `${serve.url}${path}`

describe('engine serve refuses requests a web page or a re-pointed host name can send', PROCESSES, () => {
  it('421 unless Host names the bound address and port, localhost, or an --allowed-host', async () => {
    for (const host of [`evil.example:${port}`, `attacker.test:${port}`, `127.0.0.1:1`, `127.0.0.2:${port}`, `localhost.evil.example:${port}`, 'a b']) {
      for (const [method, path, body] of [['GET', '/render/queue', undefined], ['POST', '/render/stream', RENDER_BODY]] as const) {
        const response = await rawRequest(at(path), {
          method,
          body,
          headers: {Host: host, 'Content-Type': 'application/json'},
        })
        expect(response.status, `${method} Host: ${host}`).toBe(421)
        expect(errorCode(response)).toBe('MISDIRECTED_REQUEST')
        expect(response.body).toContain('--allowed-host')
      }
    }
    expect((await rawRequest(at('/health'), {headers: {}})).status).toBe(200)
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, 'render.example.test', 'Render.Example.Test.:8443']) {
      const response = await rawRequest(at('/render/queue'), {headers: {Host: host}})
      expect(response.status, `Host: ${host}`).toBe(200)
    }
  })

  it('403 for any Origin not given with --allow-origin; CORS preflight answered only for allowed origins', async () => {
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${port}`, 'http://app.example.test:5174', 'https://app.example.test:5173']) {
      const get = await rawRequest(at('/render/queue'), {headers: {Origin: origin}})
      expect(get.status, `GET Origin: ${origin}`).toBe(403)
      expect(errorCode(get)).toBe('ORIGIN_NOT_ALLOWED')
      expect(get.headers['access-control-allow-origin']).toBeUndefined()
      const post = await rawRequest(at('/render/stream'), {method: 'POST', body: RENDER_BODY, headers: {Origin: origin, 'Content-Type': 'application/json'}})
      expect(post.status, `POST Origin: ${origin}`).toBe(403)
      const preflight = await rawRequest(at('/render/stream'), {
        method: 'OPTIONS',
        headers: {Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type'},
      })
      expect(preflight.status, `OPTIONS Origin: ${origin}`).toBe(403)
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    }

    const preflight = await rawRequest(at('/render/stream'), {
      method: 'OPTIONS',
      headers: {Origin: ALLOWED_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, authorization'},
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': ALLOWED_ORIGIN,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type',
      vary: 'Origin',
    })
    const get = await rawRequest(at('/render/queue'), {headers: {Origin: ALLOWED_ORIGIN}})
    expect(get.status).toBe(200)
    expect(get.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN)
    // No Origin, no CORS headers: curl and the engine's own client are not web pages.
    expect((await rawRequest(at('/render/queue'))).headers['access-control-allow-origin']).toBeUndefined()
  })

  it('415 for a body that is not declared application/json, whatever it contains', async () => {
    const contentTypes = ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', undefined]
    for (const contentType of contentTypes) {
      const response = await rawRequest(at('/render/stream'), {method: 'POST', body: RENDER_BODY, headers: contentType ? {'Content-Type': contentType} : {}})
      expect(response.status, String(contentType)).toBe(415)
      expect(errorCode(response)).toBe('UNSUPPORTED_MEDIA_TYPE')
      expect(response.body).toContain('Content-Type: application/json')
    }
    // The check lets JSON through (here to the body validation, which names the field).
    for (const contentType of ['application/json', 'Application/JSON; charset=utf-8']) {
      const response = await rawRequest(at('/render/stream'), {method: 'POST', body: JSON.stringify({composition: 'comp.html', fps: 'fast'}), headers: {'Content-Type': contentType}})
      expect(response.status, contentType).toBe(400)
      expect(response.body).toContain('body field \\"fps\\"')
    }
  })

  it('warns at start when it runs as root', () => {
    const warned = /^warning: engine serve is running as root: every composition/im.test(serve.output())
    expect(warned).toBe(process.getuid?.() === 0)
  })

  it('rendered nothing for any of the refused requests', async () => {
    expect(JSON.parse((await rawRequest(at('/render/queue'))).body)).toMatchObject({activeRenders: 0, queuedRenders: 0})
    expect(await dirs.outputEntries()).toEqual([])
    expect(serve.output()).not.toMatch(/ started: /)
  })
})

describe('engine serve --token on a loopback address', PROCESSES, () => {
  it('requires the bearer token there too', async () => {
    const guarded = await spawnServe(['--root', dirs.root, '--token', 'loopback-secret'])
    try {
      const url = `${guarded.url}/render/queue`
      expect((await rawRequest(url)).status).toBe(401)
      expect((await rawRequest(url, {headers: {Authorization: 'Bearer wrong'}})).status).toBe(401)
      expect((await rawRequest(url, {headers: {Authorization: 'Bearer loopback-secret'}})).status).toBe(200)
      expect(guarded.output()).toContain('token required')
    } finally {
      await guarded.stop()
    }
  }, 60_000)
})
