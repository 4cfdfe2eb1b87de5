import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {rawRequest} from './support/raw-http.js'
import {PROCESSES} from '../support/timeouts.js'

/** The preview serves the composition's project and nothing else, however the path is written. */
describe('engine preview confinement', PROCESSES, () => {
  let base: string
  let server: PreviewServer
  const at = (path: string) => server.url.replace(/\/$/, '') + path

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'engine-preview-sandbox-'))
    const project = join(base, 'project')
    await mkdir(join(project, 'assets'), {recursive: true})
    await mkdir(join(base, 'outside'))
    await writeFile(join(project, 'package.json'), '{}')
    await writeFile(join(project, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    await writeFile(join(base, 'outside', 'secret.txt'), 'SECRET')
    await symlink(join(base, 'outside'), join(project, 'assets', 'link'))
    await writeFile(
      join(project, 'index.html'),
      '<html><body><div data-composition-id="main" data-width="320" data-height="180" data-duration="1"></div></body></html>',
    )
    server = await startPreviewServer({composition: join(project, 'index.html'), port: 0, fps: {num: 30, den: 1}})
  })

  afterAll(async () => {
    await server?.close()
    await rm(base, {recursive: true, force: true})
  })

  it('serves project files, and refuses ../ and symlinks out of the project without their content', async () => {
    expect((await rawRequest(at('/assets/logo.svg'))).status).toBe(200)
    for (const path of ['/assets/link/secret.txt', '/../outside/secret.txt', '/%2e%2e/outside/secret.txt', '/assets/..%2f..%2foutside/secret.txt']) {
      const response = await rawRequest(at(path))
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect(response.body, path).not.toContain('SECRET')
    }
    expect((await rawRequest(at('/assets/link/secret.txt'))).status).toBe(403)
  })

  it('refuses a request another site sends (Origin or Sec-Fetch-Site), and answers its own page and the address bar', async () => {
    const own = new URL(server.url).origin
    for (const headers of [{origin: 'https://evil.example'}, {origin: 'null'}, {'sec-fetch-site': 'cross-site'}, {'sec-fetch-site': 'same-site'}] as Record<string, string>[]) {
      const response = await rawRequest(at('/assets/logo.svg'), {headers})
      expect(response.status, JSON.stringify(headers)).toBe(403)
      expect(response.body).toContain('ORIGIN_NOT_ALLOWED')
      expect(response.body).not.toContain('<svg')
    }
    for (const headers of [{origin: own, 'sec-fetch-site': 'same-origin'}, {'sec-fetch-site': 'none'}] as Record<string, string>[]) {
      expect((await rawRequest(at('/assets/logo.svg'), {headers})).status, JSON.stringify(headers)).toBe(200)
    }
  })
})
