import type {Browser, Page} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {launchUserBrowser, servePage, type WebSite} from './support/hostile-web.js'
import {rawRequest} from './support/raw-http.js'
import {compositionHtml, makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {PROCESSES} from '../support/timeouts.js'

const REBIND_HOST = 'rebind.test'

/**
 * Attacks from a web page the user happens to open, run in a real browser: a page on another
 * origin (127.0.0.2 / 127.0.0.3) posting a text/plain form and calling fetch, and a page whose host
 * name was re-pointed at the server (DNS rebinding: `rebind.test` resolves to 127.0.0.1 in this
 * browser, and the page itself is served as if from the attacker's first answer).
 */

const INLINE = '<html><body><div data-composition-id="x" data-width="320" data-height="180" data-duration="1"></div></body></html>'
/** A text/plain form whose single field makes the body a JSON render request. */
const formBody = {name: JSON.stringify({html: INLINE}).slice(0, -1) + ',"pad":"', value: '"}'}

function attackPage(server: string, options: {jsonFetch: boolean}): string {
  const body = JSON.stringify(JSON.stringify({html: INLINE}))
  return `<!doctype html><html><body>
<form id="form" method="POST" action="${server}/render/stream" enctype="text/plain" target="sink">
  <input type="hidden" name='${formBody.name.replace(/'/g, '&#39;')}' value='${formBody.value}'>
</form>
<iframe name="sink"></iframe>
<script>
  window.results = {}
  const record = (key) => [(response) => (window.results[key] = response.type === 'opaque' ? 'opaque' : response.status), () => (window.results[key] = 'blocked')]
  fetch('${server}/render/stream', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: ${body}}).then(...record('textFetch'))
  ${options.jsonFetch ? `fetch('${server}/render/stream', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: ${body}}).then(...record('jsonFetch'))` : ''}
  fetch('${server}/render/queue').then(...record('queueFetch'))
  document.getElementById('form').submit()
</script></body></html>`
}

function rebindPage(): string {
  return `<!doctype html><html><body><script>
  window.results = {}
  const record = (key) => [(response) => (window.results[key] = response.status), () => (window.results[key] = 'blocked')]
  fetch('/render/queue').then(...record('queueFetch'))
  fetch('/render/stream', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: ${JSON.stringify(JSON.stringify({html: INLINE}))}}).then(...record('jsonFetch'))
</script></body></html>`
}

let dirs: ServeRoot
let serve: ServeProcess
let browser: Browser
let hostile: WebSite
let trusted: WebSite

beforeAll(async () => {
  dirs = await makeServeRoot({'comp.html': compositionHtml(320, 180, 1)})
  hostile = await servePage('127.0.0.2', () => attackPage(serve.url, {jsonFetch: true}))
  // A JSON fetch from an allowed origin is a legitimate client: this page only tries what is not.
  trusted = await servePage('127.0.0.3', () => attackPage(serve.url, {jsonFetch: false}))
  // The operator allows one web app (on 127.0.0.3): even that page cannot post a form or text/plain.
  serve = await spawnServe(['--root', dirs.root, '--output-dir', dirs.outputs, '--allow-origin', trusted.origin])
  browser = await launchUserBrowser(REBIND_HOST)
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  for (const site of [hostile, trusted]) await new Promise((resolve) => site?.server.close(resolve))
  await dirs?.remove()
})

/** Opens the page, records the server's answers the browser saw, and waits for the page's own results. */
async function attack(url: string, expectedResults: string[], prepare?: (page: Page) => Promise<void>) {
  const page = await browser.newPage()
  const seen: {method: string; url: string; status: number}[] = []
  page.on('response', (response) => {
    if (response.url().startsWith(serve.url) || response.url().includes(`${REBIND_HOST}:`)) {
      seen.push({method: response.request().method(), url: response.url(), status: response.status()})
    }
  })
  await prepare?.(page)
  await page.goto(url)
  let results: Record<string, unknown> = {}
  for (let attempt = 0; attempt < 100 && !expectedResults.every((key) => key in results); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    results = await page.evaluate(() => (window as unknown as {results: Record<string, unknown>}).results)
  }
  await page.close()
  return {seen, results}
}

describe('a web page cannot make engine serve render', PROCESSES, () => {
  it('a page on another origin: its text/plain form, no-cors fetch, JSON fetch and queue read are refused', async () => {
    const {seen, results} = await attack(hostile.origin, ['textFetch', 'jsonFetch', 'queueFetch'])
    // fetch cannot read the answers: the JSON post fails its preflight, the rest are opaque or blocked.
    expect(results).toEqual({textFetch: 'opaque', jsonFetch: 'blocked', queueFetch: 'blocked'})
    // The browser saw the server refuse the form post and the text/plain fetch.
    const posts = seen.filter((entry) => entry.method === 'POST' && entry.url.endsWith('/render/stream'))
    expect(posts.length).toBeGreaterThanOrEqual(2)
    for (const post of posts) expect(post.status).toBe(403)
  })

  it('a page whose origin the operator allowed still cannot post a form or text/plain', async () => {
    const {seen, results} = await attack(trusted.origin, ['textFetch', 'queueFetch'])
    expect(results.textFetch).toBe('opaque')
    expect(results.queueFetch).toBe(200)
    const textPosts = seen.filter((entry) => entry.method === 'POST' && entry.url.endsWith('/render/stream') && entry.status === 415)
    expect(textPosts.length).toBeGreaterThanOrEqual(2)
  })

  it('a page on a host name re-pointed at the server (DNS rebinding) gets 421 even for same-origin requests', async () => {
    const port = new URL(serve.url).port
    const pageUrl = `http://${REBIND_HOST}:${port}/`
    const {seen, results} = await attack(pageUrl, ['queueFetch', 'jsonFetch'], async (page) => {
      // The attacker's first DNS answer served this page; every later request reaches the engine.
      await page.setRequestInterception(true)
      page.on('request', (request) => {
        if (request.url() === pageUrl) void request.respond({status: 200, contentType: 'text/html', body: rebindPage()})
        else void request.continue()
      })
    })
    expect(results).toEqual({queueFetch: 421, jsonFetch: 421})
    expect(seen.filter((entry) => entry.url !== pageUrl).every((entry) => entry.status === 421)).toBe(true)
  })

  it('nothing was queued, rendered or written', async () => {
    expect(JSON.parse((await rawRequest(`${serve.url}/render/queue`)).body)).toMatchObject({activeRenders: 0, queuedRenders: 0})
    expect(await dirs.outputEntries()).toEqual([])
    expect(serve.output()).not.toMatch(/ (started|queued at position)/)
  })
})
