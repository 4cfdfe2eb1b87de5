import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import {COMPILE_BUDGET} from '../../src/lib/compose/compile-budget.js'
import type {StreamEvent} from '../../src/lib/server/stream-events.js'
import {streamRender} from '../../src/lib/server-client/server-api.js'
import {runCli} from '../support/run-cli.js'
import {until} from '../support/until.js'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {rawRequest} from './support/raw-http.js'
import {makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {PROCESSES} from '../support/timeouts.js'

const page = (body: string, head = '', root = 'data-width="320" data-height="180" data-duration="1"') =>
  `<!doctype html><html><head>${head}</head><body><div data-composition-id="c" ${root}>${body}</div></body></html>`

/** The body: 600,000 empty elements, 4.2 MB, under the server's 5 MB body cap. */
const MANY_ELEMENTS = page('<i></i>'.repeat(600_000))

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-compile-budgets-'))
  // 16 files, each including the next twice: 65,534 instances if nothing stops it.
  for (let level = 0; level < 16; level++) {
    const next = level < 15 ? `<div data-composition-src="f${level + 1}.html"></div><div data-composition-src="f${level + 1}.html"></div>` : ''
    await writeFile(join(dir, `f${level}.html`), page(next))
  }
  await writeFile(join(dir, 'deep.html'), page('<b>'.repeat(600) + '</b>'.repeat(600)))
  await writeFile(join(dir, 'deep-by-hosts.html'), page('<b>'.repeat(300) + '<div data-composition-src="half-deep.html"></div>' + '</b>'.repeat(300)))
  await writeFile(join(dir, 'half-deep.html'), page('<b>'.repeat(300) + '</b>'.repeat(300)))
  await writeFile(join(dir, 'many.html'), MANY_ELEMENTS)
  await writeFile(join(dir, 'endless.html'), page('', '', 'data-width="64" data-height="64" data-duration="1000000000"'))
  await writeFile(join(dir, 'large-but-fine.html'), page('<i></i>'.repeat(90_000)))
}, 30_000)

afterAll(async () => {
  await rm(dir, {recursive: true, force: true})
})

describe('compiling holds every composition to one budget, with an error naming what was over', PROCESSES, () => {
  it('refuses elements, nesting depth, sub-composition instances and a root duration over the budget', async () => {
    expect(COMPILE_BUDGET).toEqual({maxElements: 100_000, maxDepth: 512, maxInstances: 1_000, maxDurationSeconds: 86_400})
    const cases: [string, object, RegExp][] = [
      ['many.html', {field: 'elements', limit: 100_000}, /more than 100000 elements; a composition may have at most 100000/],
      ['deep.html', {field: 'depth', value: 603, limit: 512}, /elements nested 603 deep; a composition may nest at most 512 deep/],
      ['deep-by-hosts.html', {field: 'depth', limit: 512}, /nested \d+ deep/],
      ['f0.html', {field: 'sub-composition instances', value: 1001, limit: 1000}, /more than 1000 sub-composition instances \(the next at <div data-composition-src="f\d+\.html"> in .*\); a composition may inline at most 1000/],
      ['endless.html', {field: 'data-duration', value: 1e9, limit: 86_400}, /data-duration="1000000000" is longer than the 86400 s \(24 h\) a composition may last/],
    ]
    for (const [file, details, message] of cases) {
      await expect(compileComposition(join(dir, file)), file).rejects.toMatchObject({code: 'LIMIT_EXCEEDED', details: expect.objectContaining(details), message: expect.stringMatching(message)})
    }
    // Just under the element budget compiles.
    expect((await compileComposition(join(dir, 'large-but-fine.html'))).html.length).toBeGreaterThan(90_000 * 7)
  })

  it('the CLI (render, still and lint) exits at once with the error and writes nothing', async () => {
    for (const [args, message] of [
      // One run per command: every budget's own message is checked in-process above (and the 600,000 elements through the server below).
      [['render', join(dir, 'f0.html'), '-o', join(dir, 'fan.mp4')], /error \[LIMIT_EXCEEDED\]: .*more than 1000 sub-composition instances/],
      [['still', join(dir, 'endless.html'), '-o', join(dir, 'endless.png')], /error \[LIMIT_EXCEEDED\]: .*data-duration="1000000000" is longer than/],
      [['lint', join(dir, 'deep.html')], /error \[LIMIT_EXCEEDED\]: .*nested 603 deep/],
    ] as const) {
      const result = await runCli([...args], {timeoutMs: 60_000})
      expect(result.code, args.join(' ')).toBe(1)
      expect(result.stderr).toMatch(message)
    }
    for (const name of ['fan.mp4', 'endless.png']) await expect(rm(join(dir, name))).rejects.toThrow(/ENOENT/)
  })
})

describe('engine serve stays responsive while a request compiles, and SIGTERM ends it', PROCESSES, () => {
  let serve: ServeProcess
  let root: ServeRoot

  beforeAll(async () => {
    // 1.3 MB of CSS: about a CPU-second of parsing and scoping (hundreds of times a /health round trip), within every budget.
    const css = '.a{color:red}'.repeat(100_000)
    root = await makeServeRoot({'heavy-css.html': page('', `<style>${css}</style>`, 'data-width="5000" data-height="5000" data-duration="1"')})
    serve = await spawnServe(['--root', root.root, '--output-dir', root.outputs, '--max-workers', '1'])
  }, 60_000)

  afterAll(async () => {
    if (serve?.child.exitCode === null) await serve.stop()
    await root?.remove()
  })

  const health = async () => (await rawRequest(`${serve.url}/health`)).status

  it('the issue body (600,000 elements) is refused in the compile step; /health answers meanwhile', async () => {
    const events: StreamEvent[] = []
    const rendering = (async () => {
      for await (const event of streamRender({url: serve.url}, {html: MANY_ELEMENTS})) events.push(event)
    })()
    expect(await health()).toBe(200)
    await rendering
    expect(events.at(-1)).toMatchObject({type: 'error', code: 'LIMIT_EXCEEDED', details: {field: 'elements'}})
  })

  it('a compile that takes a second runs off the event loop: /health is answered before the request ends', async () => {
    const order: string[] = []
    let started = false
    // Refused after compiling (5000x5000 is over the pixel limit), so the request ends right after its compile.
    const rendering = (async () => {
      for await (const event of streamRender({url: serve.url}, {composition: 'heavy-css.html'})) {
        if (event.type === 'started') started = true
        if (event.type === 'error') order.push(`error ${event.code}`)
      }
    })()
    // `started` comes as the compile begins: from then on the request is at work.
    expect(await until(() => started || order.length > 0, 30_000)).toBe(true)
    order.push(`health ${await health()}`)
    await rendering
    expect(order).toEqual(['health 200', 'error LIMIT_EXCEEDED'])
  })

  it('SIGTERM during a compile ends the server', async () => {
    let compiling = false
    const rendering = (async () => {
      for await (const event of streamRender({url: serve.url}, {composition: 'heavy-css.html'})) if (event.type === 'started') compiling = true
    })().catch(() => undefined)
    expect(await until(() => compiling, 30_000)).toBe(true)
    // An exit status, not a signal: the server ended itself on SIGTERM (a server that ignored it would hold this test to its timeout).
    expect(await serve.stop()).not.toBeNull()
    await rendering
  })
})
