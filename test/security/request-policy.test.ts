import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isPublicAddress} from '../../src/lib/sandbox/address-policy.js'
import {fetchRemote} from '../../src/lib/sandbox/fetch-remote.js'
import {hostRules} from '../../src/lib/sandbox/host-rules.js'
import {PageRequests, type RequestNotice} from '../../src/lib/sandbox/page-requests.js'
import {PAGE_ORIGIN} from '../../src/lib/sandbox/page-origin.js'
import {isInside, projectFile} from '../../src/lib/sandbox/project-file.js'
import {routeRequest} from '../../src/lib/sandbox/route-request.js'

const DOCUMENT = `${PAGE_ORIGIN}/scenes/index.html`

describe('the request policy', () => {
  it('routes by URL: document, project, engine assets, remote; every other scheme is blocked', () => {
    expect(routeRequest(DOCUMENT, DOCUMENT)).toEqual({kind: 'document'})
    expect(routeRequest(`${PAGE_ORIGIN}/scenes/a%20b.png?x=1`, DOCUMENT)).toEqual({kind: 'project', urlPath: '/scenes/a b.png'})
    expect(routeRequest(`${PAGE_ORIGIN}/__engine/fonts/ab.woff2`, DOCUMENT)).toEqual({kind: 'asset', assetKind: 'fonts', relativePath: 'ab.woff2'})
    expect(routeRequest(`${PAGE_ORIGIN}/__engine/secrets/x`, DOCUMENT).kind).toBe('blocked')
    expect(routeRequest('https://cdn.example.com/logo.png', DOCUMENT)).toEqual({kind: 'remote', url: 'https://cdn.example.com/logo.png'})
    expect(routeRequest('data:image/png;base64,AAAA', DOCUMENT)).toEqual({kind: 'browser'})
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', 'chrome://settings', 'ws://127.0.0.1:1/']) expect(routeRequest(url, DOCUMENT).kind).toBe('blocked')
    expect(routeRequest(`${PAGE_ORIGIN}/%E0%A4%A`, DOCUMENT).kind).toBe('blocked')
  })

  it('counts only public unicast addresses as public, including IPv4 inside IPv6', () => {
    for (const address of ['8.8.8.8', '2606:4700:4700::1111']) expect(isPublicAddress(address)).toBe(true)
    const inside = ['127.0.0.1', '127.0.0.2', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip']
    for (const address of inside) expect(isPublicAddress(address), address).toBe(false)
  })

  it('reads host rules in the browser syntax and names a malformed rule', () => {
    expect([...hostRules({ENGINE_HOST_RESOLVER_RULES: 'MAP A.test 127.0.0.2, MAP b.test ::1'})]).toEqual([
      ['a.test', '127.0.0.2'],
      ['b.test', '::1'],
    ])
    expect(() => hostRules({ENGINE_HOST_RESOLVER_RULES: 'EXCLUDE x'})).toThrow(/ENGINE_HOST_RESOLVER_RULES: "EXCLUDE x" is not a rule/)
  })
})

describe('files and downloads', () => {
  let base: string
  let project: string
  let cache: string
  let loopback: Server
  let loopbackPort: number
  let loopbackRequests = 0
  let publicServer: Server
  let publicPort: number
  const env = () => ({...process.env, ENGINE_CACHE_DIR: cache, ENGINE_HOST_RESOLVER_RULES: 'MAP public.example.test 127.0.0.2'})

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'engine-policy-'))
    project = join(base, 'project')
    cache = join(base, 'cache')
    await mkdir(join(project, 'assets'), {recursive: true})
    await mkdir(join(base, 'outside'))
    await writeFile(join(project, 'assets', 'logo.svg'), '<svg/>')
    await writeFile(join(base, 'outside', 'secret.txt'), 'SECRET')
    await symlink(join(base, 'outside', 'secret.txt'), join(project, 'assets', 'escape.txt'))
    await symlink(join(project, 'assets', 'logo.svg'), join(project, 'assets', 'alias.svg'))
    // A sibling whose name starts with the project's: inside by a bare prefix test, outside in fact.
    await mkdir(join(base, 'project-evil'))
    await writeFile(join(base, 'project-evil', 'secret.txt'), 'SECRET')
    await symlink(join(base, 'project-evil', 'secret.txt'), join(project, 'assets', 'sibling.txt'))
    loopback = createServer((_request, response) => {
      loopbackRequests++
      response.end('private')
    })
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve))
    loopbackPort = (loopback.address() as AddressInfo).port
    publicServer = createServer((request, response) => {
      if (request.url === '/redirect-inside') response.writeHead(302, {Location: `http://127.0.0.1:${loopbackPort}/`}).end()
      else if (request.url === '/redirect-localhost') response.writeHead(302, {Location: `http://localhost:${loopbackPort}/`}).end()
      else if (request.url === '/loop') response.writeHead(302, {Location: '/loop'}).end()
      else response.writeHead(200, {'Content-Type': 'text/plain'}).end('public')
    })
    await new Promise<void>((resolve) => publicServer.listen(0, '127.0.0.2', resolve))
    publicPort = (publicServer.address() as AddressInfo).port
  })

  afterAll(async () => {
    loopback.close()
    publicServer.close()
    await rm(base, {recursive: true, force: true})
  })

  it('serves project files, follows symlinks that stay inside, and refuses those that leave', async () => {
    expect(await projectFile(project, '/assets/logo.svg')).toEqual({kind: 'file', path: join(project, 'assets', 'logo.svg')})
    expect((await projectFile(project, '/assets/alias.svg')).kind).toBe('file')
    expect((await projectFile(project, '/assets/escape.txt')).kind).toBe('outside')
    expect((await projectFile(project, '/../outside/secret.txt')).kind).toBe('outside')
    expect((await projectFile(project, '/assets/none.svg')).kind).toBe('missing')
    expect((await projectFile(project, '/../project-evil/secret.txt')).kind).toBe('outside')
    // A dot-file is hidden whether or not it exists: a page cannot probe for .env or .git.
    expect((await projectFile(project, '/.env')).kind).toBe('hidden')
    expect((await projectFile(project, '/assets/.git/config')).kind).toBe('hidden')
    expect((await projectFile(project, '/assets/sibling.txt')).kind).toBe('outside')
    expect(isInside(project, join(base, 'project-evil', 'secret.txt'))).toBe(false)
    expect(isInside(project, join(base, 'project-evil'))).toBe(false)
    expect(isInside(project, project)).toBe(true)
    expect(isInside(project + '/', join(project, 'assets'))).toBe(true)
    expect((await projectFile(project, '/assets')).kind).toBe('missing')
  })

  it('a redirect from a public host to loopback, by address or by name, is blocked before it connects', async () => {
    const network = {publicUrls: true, privateAddresses: false}
    for (const path of ['/redirect-inside', '/redirect-localhost']) {
      await expect(fetchRemote(`http://public.example.test:${publicPort}${path}`, {network, env: env()})).rejects.toMatchObject({code: 'REQUEST_BLOCKED'})
    }
    await expect(fetchRemote(`http://public.example.test:${publicPort}/loop`, {network, env: env()})).rejects.toMatchObject({
      code: 'DOWNLOAD_FAILED',
      message: expect.stringContaining('more than 5 redirects'),
    })
    expect(loopbackRequests).toBe(0)
  })

  it('a file fetched from a private address under --allow-private-network is not handed to a render without it', async () => {
    const url = `http://127.0.0.1:${loopbackPort}/cached`
    const trusted = await fetchRemote(url, {network: {publicUrls: true, privateAddresses: true}, env: env()})
    expect(trusted.contentType).toBeDefined()
    expect(loopbackRequests).toBe(1)
    await expect(fetchRemote(url, {network: {publicUrls: true, privateAddresses: false}, env: env()})).rejects.toMatchObject({code: 'REQUEST_BLOCKED'})
    expect(loopbackRequests).toBe(1)
  })

  it('answers a page: each remote URL downloaded once, each blocked URL reported once', async () => {
    const notices: RequestNotice[] = []
    const requests = new PageRequests({
      html: '<p>hi</p>',
      documentUrl: DOCUMENT,
      projectDir: project,
      network: {publicUrls: true, privateAddresses: false},
      env: env(),
      onNotice: (notice) => notices.push(notice),
    })
    const document = await requests.answer(DOCUMENT)
    expect(document !== 'blocked' && document !== 'browser' && document.body.toString()).toBe('<p>hi</p>')
    const logo = await requests.answer(`${PAGE_ORIGIN}/assets/logo.svg`)
    expect(logo !== 'blocked' && logo !== 'browser' && logo.status).toBe(200)
    const remote = `http://public.example.test:${publicPort}/file.txt`
    const [first, second] = await Promise.all([requests.answer(remote), requests.answer(remote)])
    for (const answer of [first, second]) expect(answer !== 'blocked' && answer !== 'browser' && answer.body.toString()).toBe('public')
    expect(requests.fetchedUrls).toEqual([remote])
    for (let i = 0; i < 3; i++) {
      expect(await requests.answer(`${PAGE_ORIGIN}/assets/escape.txt`)).toBe('blocked')
      expect(await requests.answer(`http://127.0.0.1:${loopbackPort}/x`)).toBe('blocked')
    }
    expect(notices.map((notice) => notice.code)).toEqual(['blocked-request', 'blocked-request'])
    expect(loopbackRequests).toBe(1)
  })
})
