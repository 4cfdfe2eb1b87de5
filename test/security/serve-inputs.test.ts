import {mkdir, symlink, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {errorCode, rawRequest} from './support/raw-http.js'
import {compositionHtml, makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {PROCESSES} from '../support/timeouts.js'

let dirs: ServeRoot
let serve: ServeProcess

beforeAll(async () => {
  dirs = await makeServeRoot({'.secret.html': compositionHtml(320, 180, 1)})
  await mkdir(join(dirs.root, '.git'))
  await writeFile(join(dirs.root, '.git', 'comp.html'), compositionHtml(320, 180, 1))
  await symlink(join(dirs.root, '.secret.html'), join(dirs.root, 'innocent.html'))
  serve = await spawnServe(['--root', dirs.root, '--output-dir', dirs.outputs])
}, 60_000)

afterAll(async () => {
  await serve?.stop()
  await dirs?.remove()
})

const post = (path: string, body: string) => rawRequest(`${serve.url}${path}`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body})
/** `{"a":{"a":…}}` nested `depth` objects deep. */
const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)

describe('engine serve: hostile bodies and compositions', PROCESSES, () => {
  it('a deeply nested body is a 400 naming the limit, not a stack overflow (500)', async () => {
    for (const path of ['/render/stream', '/still']) {
      const response = await post(path, `{"composition": "missing.html", "variables": {"deep": ${nested(100_000)}}}`)
      expect(response.status, path).toBe(400)
      expect(errorCode(response)).toBe('INVALID_REQUEST')
      expect(response.body).toContain('more than 64 deep, the limit')
    }
    // Brackets inside strings do not count, and ordinary nesting passes on to the next check.
    const fine = await post('/render/stream', `{"composition": "missing.html", "variables": {"text": "${'['.repeat(1000)}", "deep": ${nested(20)}}}`)
    expect(fine.status).toBe(404)
  })

  it('a dot-file or a file in a dot-folder is refused as a composition before it is read, also through a symlink', async () => {
    for (const composition of ['.secret.html', '.git/comp.html', 'innocent.html', './.git/../.secret.html']) {
      for (const path of ['/render/stream', '/still']) {
        const response = await post(path, JSON.stringify({composition}))
        expect(response.status, `${path} ${composition}`).toBe(403)
        expect(errorCode(response)).toBe('PATH_OUTSIDE_ROOT')
        expect(response.body).toContain('is a dot-file or inside a dot-folder, which the server never reads')
      }
    }
    // A missing dot-file gets the same answer: its existence is not disclosed.
    expect((await post('/render/stream', JSON.stringify({composition: '.nothing.html'}))).status).toBe(403)
    expect(await dirs.outputEntries()).toEqual([])
  })
})
