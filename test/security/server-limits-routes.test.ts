import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {errorCode, rawRequest} from './support/raw-http.js'
import {compositionHtml, makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {streamEvents} from './support/stream-events.js'
import {PROCESSES} from '../support/timeouts.js'

let dirs: ServeRoot
let serve: ServeProcess

beforeAll(async () => {
  dirs = await makeServeRoot({'small.html': compositionHtml(320, 180, 1), 'wide.html': compositionHtml(640, 360, 1)})
  serve = await spawnServe(['--root', dirs.root, '--output-dir', dirs.outputs, '--max-pixels', '320x180', '--max-workers', '1'])
}, 60_000)

afterAll(async () => {
  await serve?.stop()
  await dirs?.remove()
})

const render = (body: Record<string, unknown>) => streamEvents(serve.url, body)

const still = (body: Record<string, unknown>) =>
  rawRequest(`${serve.url}/still`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})

describe('the server limits hold for the drawn size and on every route', PROCESSES, () => {
  it('--max-pixels counts the frame as drawn: a scale that multiplies the pixels is refused, for the video and its poster', async () => {
    for (const body of [{composition: 'small.html', scale: 4}, {composition: 'small.html', scale: 2, poster: 0.5}]) {
      const events = await render(body)
      expect(events.at(-1), JSON.stringify(body)).toMatchObject({
        type: 'error',
        code: 'LIMIT_EXCEEDED',
        message: expect.stringMatching(/320x180 at scale \d is \d+x\d+, which is \d+ pixels per frame; this server renders at most 57600/),
        details: {field: 'scale', limit: 57_600},
      })
    }
    expect(await dirs.outputEntries()).toEqual([])
    // A scale that keeps the frame within the limit renders.
    expect((await render({composition: 'small.html', scale: 0.5})).at(-1)).toMatchObject({type: 'complete'})
  })

  it('POST /still has the same limits: drawn pixels (413) and at most 1000 variables (413)', async () => {
    for (const body of [{composition: 'small.html', scale: 4}, {composition: 'wide.html'}, {html: compositionHtml(640, 360, 1)}]) {
      const response = await still(body)
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(413)
      expect(errorCode(response)).toBe('LIMIT_EXCEEDED')
    }
    const flood = Object.fromEntries(Array.from({length: 5000}, (_, index) => [`v${index}`, index]))
    const flooded = await still({composition: 'small.html', variables: flood})
    expect(flooded.status).toBe(413)
    expect(JSON.parse(flooded.body).error).toMatchObject({code: 'LIMIT_EXCEEDED', details: {field: 'variables', value: 5000, limit: 1000}})
    const fine = await still({composition: 'small.html', scale: 1})
    expect(fine.status).toBe(200)
    expect(fine.headers['content-type']).toBe('image/png')
  })
})
