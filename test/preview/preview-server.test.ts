import {spawn} from 'node:child_process'
import {request} from 'node:http'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCommand, startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const FIXTURE = 'test/fixtures/preview/all-types.html'

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function get(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    request(url, {headers}, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, body}))
    })
      .on('error', reject)
      .end()
  })
}

describe('engine preview: the server', PROCESSES, () => {
  let server: PreviewServer

  beforeAll(async () => {
    server = await startPreviewServer({composition: join(REPO_ROOT, FIXTURE), port: 0, fps: {num: 25, den: 1}})
  })
  afterAll(() => server?.close())

  it('serves the composition from the project root at its own path, the runtime config first in <head>', async () => {
    expect(server.root).toBe(REPO_ROOT)
    const state = JSON.parse((await get(`${server.url}__preview/state`)).body)
    expect(state).toMatchObject({documentPath: `/${FIXTURE}`, fps: {num: 25, den: 1}, composition: {width: 320, height: 180, totalFrames: 50}})
    expect(state.composition.declarations.map((declaration: {type: string}) => declaration.type)).toEqual(['string', 'number', 'color', 'boolean', 'enum', 'image'])

    const variables = encodeURIComponent(JSON.stringify({accent: '#00ff00'}))
    const page = await get(`${server.url}${FIXTURE}?variables=${variables}`)
    expect(page.status).toBe(200)
    const head = /<head>([\s\S]*?)<\/head>/.exec(page.body)![1]
    const scripts = [...head.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts[0][2]).toMatch(/^window\.__ENGINE_CONFIG__ = /)
    const config = JSON.parse(scripts[0][2].replace(/^window\.__ENGINE_CONFIG__ = /, '').replace(/;$/, ''))
    expect(config).toMatchObject({compositionId: 'all-types', fps: {num: 25, den: 1}, variables: {accent: '#00ff00', title: 'Hello'}})
    expect(scripts[1][1]).toContain('src="/__preview/runtime.js"')
    expect((await get(`${server.url}__preview/runtime.js`)).body).toContain('installRuntime')
  })

  it('serves the font faces of the page from the font cache, by content address only', async () => {
    const page = await get(`${server.url}${FIXTURE}`)
    const config = JSON.parse(/window\.__ENGINE_CONFIG__ = (.*?);<\/script>/s.exec(page.body)![1]) as {fonts: {faces: {family: string; url: string}[]}}
    const face = config.fonts.faces.find((candidate) => candidate.family === 'Noto Serif')!
    expect(face.url).toMatch(/^\/__engine\/fonts\/[0-9a-f]{64}\.woff2$/)
    const font = await get(`${server.url}${face.url.slice(1)}`)
    expect(font.status).toBe(200)
    expect(font.headers['content-type']).toBe('font/woff2')
    expect(font.body.startsWith('wOF2')).toBe(true)
    for (const path of ['__engine/fonts/packages%2fpackage.json', '__engine/fonts/..%2f..%2fetc%2fpasswd', '__engine/fonts/abc.woff2']) {
      expect((await get(`${server.url}${path}`)).status, path).toBe(404)
    }
  })

  it('refuses malformed variables, paths outside the project and other Host names', async () => {
    expect((await get(`${server.url}${FIXTURE}?variables=%5B1%5D`)).status).toBe(400)
    const outside = await get(`${server.url}..%2f..%2f..%2fetc%2fpasswd`)
    expect(outside.status).toBe(403)
    expect(JSON.parse(outside.body).error.code).toBe('PATH_OUTSIDE_ROOT')
    const rebound = await get(server.url, {host: 'attacker.example:80'})
    expect(rebound.status).toBe(403)
  })

  it('serves project files with byte ranges (media elements seek with them)', async () => {
    const whole = await get(`${server.url}package.json`)
    expect(whole.headers['content-type']).toBe('application/json; charset=utf-8')
    const part = await get(`${server.url}package.json`, {range: 'bytes=2-9'})
    expect(part.status).toBe(206)
    expect(part.body).toBe(whole.body.slice(2, 10))
    expect(part.headers['content-range']).toBe(`bytes 2-9/${Buffer.byteLength(whole.body)}`)
  })

  it('names a missing composition', async () => {
    await expect(startPreviewServer({composition: 'nope/missing.html', port: 0, fps: {num: 30, den: 1}})).rejects.toMatchObject({
      code: 'COMPOSITION_NOT_FOUND',
      message: expect.stringContaining('nope/missing.html does not exist'),
    })
  })

  it('opens the browser with the platform opener', () => {
    expect(openCommand('http://127.0.0.1:3000/', 'linux')).toEqual({command: 'xdg-open', args: ['http://127.0.0.1:3000/']})
    expect(openCommand('http://127.0.0.1:3000/', 'darwin')).toEqual({command: 'open', args: ['http://127.0.0.1:3000/']})
    expect(openCommand('http://127.0.0.1:3000/', 'win32').command).toBe('cmd')
  })
})

describe('engine preview: the command', PROCESSES, () => {
  it('--port 0 --no-open prints the URL, serves the player, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/run.js'), 'preview', FIXTURE, '--port', '0', '--no-open'], {cwd: REPO_ROOT})
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 20_000)
        void exited.then((code) => reject(new Error(`engine preview exited with ${code}: ${output}`)))
        child.stdout.on('data', () => {
          const match = /http:\/\/127\.0\.0\.1:\d+\//.exec(output)
          if (match) {
            clearTimeout(timer)
            resolve(match[0])
          }
        })
      })
      const page = await get(url)
      expect(page.status).toBe(200)
      expect(page.body).toContain('id="variables-form"')
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  })
})
