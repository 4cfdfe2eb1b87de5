import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {spawnServe} from '../server/support/spawn-serve.js'
import {near, pixelAt} from '../support/media.js'
import {overrideEnv} from '../support/override-env.js'
import {rawRequest} from './support/raw-http.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * Compositions that try to read outside their project or reach this machine's network, rendered
 * for real. Each escape that worked would paint the frame red (or show a red image); the frames
 * must stay green, the listeners must see no request, and every blocked URL is reported.
 */

const GREEN = {r: 0, g: 255, b: 0}
const BLUE = {r: 0, g: 0, b: 255}
const svg = (fill: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16" fill="${fill}"/></svg>`

interface Listener {
  server: Server
  port: number
  requests: string[]
}

async function listen(host: string): Promise<Listener> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(request.url ?? '')
    response.writeHead(200, {'Content-Type': 'image/svg+xml', 'Access-Control-Allow-Origin': '*'}).end(svg('blue'))
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return {server, port: (server.address() as AddressInfo).port, requests}
}

function composition(body: string, script: string): string {
  return `<!doctype html><html><head><style>html, body { margin: 0 } img.probe { display: none }</style></head><body>
<div data-composition-id="main" data-width="160" data-height="90" data-duration="0.5">
  <div id="fill" style="position: absolute; inset: 0; background: #00ff00"></div>
  ${body}
</div>
<script>
  const leak = () => { document.getElementById('fill').style.background = '#ff0000' }
  const tryFetch = (url) => fetch(url).then((response) => response.ok && leak(), () => {})
  ${script}
</script></body></html>`
}

let base: string
let project: string
let outside: string
let local: Listener
let publicHost: Listener
let restoreEnv: () => void

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'engine-sandbox-'))
  project = join(base, 'project')
  outside = join(base, 'outside')
  await mkdir(join(project, 'scenes'), {recursive: true})
  await mkdir(outside)
  await writeFile(join(project, 'package.json'), '{}')
  await writeFile(join(outside, 'secret.txt'), 'SECRET')
  await writeFile(join(outside, 'red.svg'), svg('red'))
  await writeFile(join(outside, 'sub.html'), '<div data-composition-id="sub" data-width="160" data-height="90" data-duration="0.5"></div>')
  await symlink(outside, join(project, 'scenes', 'link'))
  local = await listen('127.0.0.1')
  publicHost = await listen('127.0.0.2')
  // The stand-in for a public host: a name the engine maps to another loopback address and vouches for.
  // A download cache of its own: the shared one may hold this URL from an earlier run on the same port.
  restoreEnv = overrideEnv({ENGINE_HOST_RESOLVER_RULES: 'MAP assets.example.test 127.0.0.2', ENGINE_CACHE_DIR: join(base, 'cache')})
})

afterAll(async () => {
  restoreEnv()
  for (const listener of [local, publicHost]) listener?.server.close()
  await rm(base, {recursive: true, force: true})
})

async function render(name: string, html: string, options: Record<string, unknown> = {}) {
  const file = join(project, 'scenes', `${name}.html`)
  await writeFile(file, html)
  const events: RenderEvent[] = []
  const result = await renderComposition({
    composition: file,
    options: resolveRenderOptions({quality: 'draft', workers: 2, keyframeInterval: 0.1, ...options, output: join(base, 'out', `${name}.mp4`)}),
    onEvent: (event) => events.push(event),
  })
  const blocked = events.flatMap((event) => (event.type === 'warning' && event.code === 'blocked-request' ? [event.message] : []))
  return {result, blocked}
}

describe('the render-time sandbox', PROCESSES, () => {
  it('reads nothing outside the project: file:, ../, a symlink out, in images, fetch, XHR and frames', async () => {
    const secret = `file://${join(outside, 'secret.txt')}`
    const html = composition(
      `<img class="probe" onload="leak()" src="file://${join(outside, 'red.svg')}">
       <img class="probe" onload="leak()" src="../../outside/red.svg">
       <img class="probe" onload="leak()" src="link/red.svg">
       <iframe src="${secret}" onload="try { this.contentDocument.body.textContent.includes('SECRET') && leak() } catch {}"></iframe>`,
      `tryFetch(${JSON.stringify(secret)}); tryFetch('link/secret.txt'); tryFetch('../../outside/secret.txt')
       const xhr = new XMLHttpRequest(); xhr.onload = () => xhr.status === 200 && leak(); xhr.open('GET', 'link/secret.txt'); xhr.send()`,
    )
    const {result, blocked} = await render('files', html)
    for (const frame of [0, 14]) expect(near(await pixelAt(result.output, frame, 80, 80), GREEN)).toBe(true)
    expect(blocked.some((message) => message.includes('link/red.svg') && message.includes('outside the project'))).toBe(true)
    expect(blocked.some((message) => message.includes('link/secret.txt'))).toBe(true)
    // The browser refuses file: URLs without a request; they are reported all the same.
    expect(blocked.filter((message) => message.includes(secret))).toHaveLength(1)
    expect(blocked.some((message) => message.includes(`file://${join(outside, 'red.svg')}`))).toBe(true)
  })

  it('reaches no loopback or private address, by IP, by name, by WebSocket; each blocked URL is reported once', async () => {
    const loopback = `http://127.0.0.1:${local.port}/red.svg`
    const byName = `http://localhost:${local.port}/named.svg`
    const privateAddress = 'http://10.255.255.1/red.svg'
    const metadata = 'http://169.254.169.254/latest/meta-data/'
    const html = composition(
      `<img class="probe" onload="leak()" src="${loopback}"><img class="probe" onload="leak()" src="${byName}"><img class="probe" onload="leak()" src="${privateAddress}">`,
      `tryFetch(${JSON.stringify(loopback)}); tryFetch(${JSON.stringify(metadata)}); tryFetch('http://[::1]:${local.port}/')
       try { const socket = new WebSocket('ws://127.0.0.1:${local.port}/'); socket.onopen = leak } catch {}`,
    )
    const {result, blocked} = await render('network', html)
    expect(near(await pixelAt(result.output, 14, 80, 80), GREEN)).toBe(true)
    expect(local.requests).toEqual([])
    for (const url of [loopback, byName, privateAddress, metadata]) expect(blocked.filter((message) => message.includes(url))).toHaveLength(1)
    expect(result.fetchedUrls).toEqual([])
  })

  it('fetches a public URL once through the download cache, lists it, and blocks it with --no-network', async () => {
    const url = `http://assets.example.test:${publicHost.port}/logo.svg`
    const html = composition(`<img src="${url}" style="position: absolute; left: 0; top: 0; width: 40px; height: 40px">`, '')
    const {result} = await render('public', html)
    expect(near(await pixelAt(result.output, 0, 20, 20), BLUE)).toBe(true)
    expect(near(await pixelAt(result.output, 14, 20, 20), BLUE)).toBe(true)
    // Two workers and the media stage share one download.
    expect(publicHost.requests).toEqual(['/logo.svg'])
    expect(result.fetchedUrls).toEqual([url])

    const hermetic = await render('hermetic', html, {network: false})
    expect(near(await pixelAt(hermetic.result.output, 0, 20, 20), GREEN)).toBe(true)
    expect(hermetic.blocked.some((message) => message.includes(url) && message.includes('--no-network'))).toBe(true)
    expect(publicHost.requests).toHaveLength(1)
  })

  it('--allow-private-network lets a trusted render reach a loopback server', async () => {
    const url = `http://127.0.0.1:${local.port}/trusted.svg`
    const html = composition(`<img src="${url}" style="position: absolute; left: 0; top: 0; width: 40px; height: 40px">`, '')
    const {result} = await render('trusted', html, {allowPrivateNetwork: true})
    expect(near(await pixelAt(result.output, 0, 20, 20), BLUE)).toBe(true)
    expect(local.requests).toEqual(['/trusted.svg'])
    local.requests.length = 0
  })

  it('refuses a sub-composition outside the project with one error, whether the file exists or not', async () => {
    const messages: string[] = []
    for (const src of ['link/sub.html', '../../outside/sub.html', '../../outside/missing.html']) {
      const html = composition(`<div data-composition-src="${src}"></div>`, '')
      const error = await render('sub', html).then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error).toBeInstanceOf(EngineError)
      expect((error as EngineError).code).toBe('PATH_OUTSIDE_ROOT')
      messages.push((error as EngineError).message.replaceAll(src, '<src>'))
    }
    expect(new Set(messages).size).toBe(1)
  })
})

describe('engine serve renders in the sandbox', PROCESSES, () => {
  it('an inline composition and one from --root reach neither the files outside nor loopback', async () => {
    const loopback = `http://127.0.0.1:${local.port}/from-server.svg`
    const probes = `<img class="probe" onload="leak()" src="${loopback}"><img class="probe" onload="leak()" src="link/red.svg">`
    await writeFile(join(project, 'scenes', 'served.html'), composition(probes, `tryFetch('link/secret.txt')`))
    const serve = await spawnServe(['--root', project])
    try {
      for (const body of [{composition: 'scenes/served.html'}, {html: composition(probes, `tryFetch(${JSON.stringify(`file://${join(outside, 'secret.txt')}`)})`)}]) {
        const response = await rawRequest(`${serve.url}/render/stream`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})
        expect(response.body).toContain('"type":"complete"')
        expect(response.body).toContain('blocked-request')
      }
      expect(local.requests).toEqual([])
    } finally {
      await serve.stop()
    }
  })
})
