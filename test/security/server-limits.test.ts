import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {DEFAULT_RENDER_LIMITS} from '../../src/lib/plan/render-limits.js'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {runCli} from '../support/run-cli.js'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {errorCode, rawRequest} from './support/raw-http.js'
import {compositionHtml, makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {streamEvents} from './support/stream-events.js'
import {PROCESSES} from '../support/timeouts.js'

let dirs: ServeRoot
let serve: ServeProcess

beforeAll(async () => {
  dirs = await makeServeRoot({
    'small.html': compositionHtml(320, 180, 1),
    'long.html': compositionHtml(320, 180, 3),
    'ten-hours.html': compositionHtml(320, 180, 36_000),
    'wide.html': compositionHtml(640, 360, 1),
    'huge.html': compositionHtml(100_000, 100_000, 1),
  })
  serve = await spawnServe(['--root', dirs.root, '--output-dir', dirs.outputs, '--max-duration', '2', '--max-pixels', '320x180', '--max-workers', '1'])
}, 60_000)

afterAll(async () => {
  await serve?.stop()
  await dirs?.remove()
})

const render = (body: Record<string, unknown>) => streamEvents(serve.url, body)

describe('per-request limits of engine serve', PROCESSES, () => {
  it('defaults: 600 s of video and 3840x2160 pixels; invalid limit flags are clear errors', async () => {
    expect(DEFAULT_RENDER_LIMITS).toEqual({maxDurationSeconds: 600, maxPixels: 8_294_400})
    expect((await resolveServerSettings({root: dirs.root}, {})).limits).toEqual(DEFAULT_RENDER_LIMITS)
    await expect(resolveServerSettings({root: dirs.root, maxPixels: 'lots'}, {})).rejects.toMatchObject({code: 'INVALID_FLAG', message: expect.stringContaining('--max-pixels: "lots"')})
    const bad = await runCli(['serve', '--port', '0', '--max-duration', '-5'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/error \[INVALID_FLAG\]: --max-duration: "-5" is not a positive number of seconds/)
  })

  it('refuses a composition longer or larger than allowed before any browser starts, naming field, value and limit', async () => {
    const cases: [string, RegExp, object][] = [
      ['long.html', /data-duration: the composition is 3 s of video; this server renders at most 2 s per request \(engine serve --max-duration\)/, {field: 'data-duration', value: 3, limit: 2}],
      ['ten-hours.html', /36000 s of video.*at most 2 s/, {field: 'data-duration', value: 36_000, limit: 2}],
      ['wide.html', /data-width x data-height: 640x360 is 230400 pixels per frame; this server renders at most 57600 \(engine serve --max-pixels\)/, {value: '640x360', limit: 57_600}],
    ]
    for (const [composition, message, details] of cases) {
      const events = await render({composition})
      // Refused while compiling: no plan announced, nothing captured.
      expect(events.map((event) => (event.type === 'progress' ? event.stage : event.type)), composition).toEqual(['started', 'compile', 'error'])
      expect(events.at(-1)).toMatchObject({type: 'error', code: 'LIMIT_EXCEEDED', message: expect.stringMatching(message), details})
    }
    // A size no browser can draw is refused at plan time, in every mode.
    expect((await render({composition: 'huge.html'})).at(-1)).toMatchObject({
      code: 'COMPOSITION_INVALID',
      message: expect.stringContaining('data-width="100000": the browser draws frames of 1 to 16384 pixels a side'),
    })
    expect(await dirs.outputEntries()).toEqual([])
  })

  it('413 for a request setting more than 1000 variables', async () => {
    const variables = Object.fromEntries(Array.from({length: 200_000}, (_, index) => [`v${index}`, 1]))
    const response = await rawRequest(`${serve.url}/render/stream`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({composition: 'small.html', variables})})
    expect(response.status).toBe(413)
    expect(errorCode(response)).toBe('LIMIT_EXCEEDED')
    expect(response.body).toContain('body field \\"variables\\": 200000 keys; a request may set at most 1000 variables')
  })

  it('caps workers at --max-workers and collapses repeated warnings into one summary with a count', async () => {
    const variables = Object.fromEntries(Array.from({length: 900}, (_, index) => [`undeclared${index}`, index]))
    const events = await render({composition: 'small.html', fps: 5, quality: 'draft', workers: 24, variables: {color: '#ff0000', ...variables}})
    expect(events.at(-1)).toMatchObject({type: 'complete', totalFrames: 5, hdr: null})
    expect(events.find((event) => event.type === 'start')).toMatchObject({workers: 1, width: 320, height: 180, totalFrames: 5})
    expect(events).toContainEqual(expect.objectContaining({type: 'warning', code: 'workers-capped', message: expect.stringContaining('workers: 24 asked for; this server runs at most 1')}))
    const undeclared = events.filter((event) => event.type === 'warning' && event.code === 'undeclared')
    expect(undeclared).toHaveLength(4)
    expect(undeclared.at(-1)).toMatchObject({count: 900, message: expect.stringContaining('900 "undeclared" warnings in all')})
    expect(events.length).toBeLessThan(100)
  })
})
