import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {rawRequest} from './support/raw-http.js'
import {compositionHtml, makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {streamEvents} from './support/stream-events.js'
import {PROCESSES} from '../support/timeouts.js'

let dirs: ServeRoot
let serve: ServeProcess

beforeAll(async () => {
  dirs = await makeServeRoot({
    'ok.html': compositionHtml(160, 90, 1),
    'outside-sub.html': compositionHtml(160, 90, 1).replace('<div class="fill"></div>', '<div class="fill"></div><div data-composition-src="../../elsewhere/sub.html"></div>'),
    'peek.html': compositionHtml(160, 90, 1).replace('</body>', '<img src="/../../etc/hostname"><img src="/.env"></body>'),
  })
  serve = await spawnServe(['--root', dirs.root, '--output-dir', dirs.outputs, '--max-workers', '1'])
}, 60_000)

afterAll(async () => {
  await serve?.stop()
  await dirs?.remove()
})

const render = (body: Record<string, unknown>) => streamEvents(serve.url, body)

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  rawRequest(`${serve.url}${path}`, {method: 'POST', headers: {'Content-Type': 'application/json', ...headers}, body: JSON.stringify(body)})

describe('what engine serve tells its clients names no path of the machine', PROCESSES, () => {
  it('error bodies and stream events about files name them relative to the root, never its absolute path', async () => {
    const bodies = [
      (await post('/render/stream', {composition: '../outside.html'})).body,
      (await post('/render/stream', {composition: 'missing.html'})).body,
      (await post('/still', {composition: 'outside-sub.html'})).body,
      JSON.stringify(await render({composition: 'outside-sub.html'})),
      JSON.stringify(await render({composition: 'peek.html'})),
    ]
    for (const body of bodies) {
      expect(body).not.toContain(dirs.root)
      expect(body).not.toContain(dirs.outputs)
      expect(body).not.toMatch(/"\/tmp\/|\/home\//)
    }
    expect(bodies[0]).toMatch(/PATH_OUTSIDE_ROOT/)
    expect(bodies[2]).toMatch(/PATH_OUTSIDE_ROOT.*<root>/)
  })

  it('the 403 for a page without a usable origin ("null") gives a fix the server accepts', async () => {
    const refused = await post('/render/stream', {composition: 'ok.html'}, {Origin: 'null'})
    expect(refused.status).toBe(403)
    const message = JSON.parse(refused.body).error.message as string
    expect(message).not.toMatch(/--allow-origin null/)
    expect(message).toMatch(/cannot be allowed; serve it from an http\(s\) origin/)
    // The fix it gives for a real origin is one the flag takes.
    const other = await post('/render/stream', {composition: 'ok.html'}, {Origin: 'http://127.0.0.2:8080'})
    expect(JSON.parse(other.body).error.message).toMatch(/--allow-origin http:\/\/127\.0\.0\.2:8080/)
  })
})
