import {copyFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderStill} from '../../src/lib/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {startServer} from '../../src/lib/server/start-server.js'
import {decodeFrame, near, pixelAt} from '../support/media.js'
import {FIXTURES, useScratchDir} from '../render/support.js'
import {PROCESSES} from '../support/timeouts.js'

const blocks = join(FIXTURES, 'blocks.html')

describe('engine serve: POST /still', PROCESSES, () => {
  const scratch = useScratchDir()

  it('answers with the image of that frame, with the same validation and auth as /render/stream', async () => {
    const root = scratch()
    await copyFile(blocks, join(root, 'blocks.html'))
    const server = await startServer(await resolveServerSettings({port: 0, root, maxConcurrentRenders: 1, token: 'still-token'}, {}))
    const post = (body: unknown, token = 'still-token') =>
      fetch(`${server.url}/still`, {
        method: 'POST',
        headers: {'Content-Type': 'application/json', ...(token ? {Authorization: `Bearer ${token}`} : {})},
        body: JSON.stringify(body),
      })
    try {
      const response = await post({composition: 'blocks.html', fps: 10, frame: 7})
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('image/png')
      expect(response.headers.get('x-engine-frame')).toBe('7')
      const served = join(root, 'served.png')
      await writeFile(served, Buffer.from(await response.arrayBuffer()))
      const local = await renderStill({composition: blocks, options: resolveRenderOptions({fps: 10, output: join(root, 'local.png')}), still: {frame: 7}})
      const [a, b] = await Promise.all([decodeFrame(served, 0, 'format=rgba'), decodeFrame(local.output, 0, 'format=rgba')])
      expect(a.equals(b)).toBe(true)

      const jpeg = await post({html: '<html><body><div data-composition-id="x" data-width="64" data-height="32" data-duration="1" style="width:64px;height:32px;background:#00ff00"></div></body></html>', time: 0.5, format: 'jpeg', quality: 70})
      expect(jpeg.status).toBe(200)
      expect(jpeg.headers.get('content-type')).toBe('image/jpeg')
      const jpegPath = join(root, 'inline.jpg')
      await writeFile(jpegPath, Buffer.from(await jpeg.arrayBuffer()))
      expect(near(await pixelAt(jpegPath, 0, 10, 10), {r: 0, g: 255, b: 0})).toBe(true)

      const refused: [unknown, number, RegExp][] = [
        [{composition: 'blocks.html', frame: -1}, 400, /body field "frame": -1 is invalid/],
        [{composition: 'blocks.html', frame: 1, time: 1}, 400, /body field "frame" and body field "time" cannot be combined/],
        [{composition: 'blocks.html', format: 'gif'}, 400, /body field "format": "gif" is invalid/],
        [{composition: 'blocks.html', output: '/etc/x.png'}, 400, /body field "output": not accepted/],
        [{composition: '../../etc/passwd'}, 403, /outside/],
        [{composition: 'blocks.html', frame: 600}, 400, /past the end/],
        [{}, 400, /exactly one of "composition"/],
      ]
      for (const [body, status, message] of refused) {
        const answer = await post(body)
        expect(answer.status, JSON.stringify(body)).toBe(status)
        expect(((await answer.json()) as {error: {message: string}}).error.message, JSON.stringify(body)).toMatch(message)
      }
      expect((await post({composition: 'blocks.html'}, '')).status).toBe(401)
      expect((await post({composition: 'blocks.html'}, 'wrong')).status).toBe(401)
    } finally {
      await server.close()
    }
  }, 180_000)
})
