import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {near, pixelAt} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {spawnServe} from '../server/support/spawn-serve.js'

const WEBP_PLUGIN = join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'engine-plugin-webp')
const FIXTURES = join(REPO_ROOT, 'test', 'server', 'fixtures')
const COLOR = join(FIXTURES, 'color.html')

interface WebpChunk {
  id: string
  data: Buffer
}

function chunks(data: Buffer, from: number, to = data.length): WebpChunk[] {
  const found: WebpChunk[] = []
  for (let offset = from; offset + 8 <= to; ) {
    const size = data.readUInt32LE(offset + 4)
    found.push({id: data.toString('latin1', offset, offset + 4), data: data.subarray(offset + 8, offset + 8 + size)})
    offset += 8 + size + (size % 2)
  }
  return found
}

/** The canvas size and frames of an animated WebP, each frame as a still WebP ffmpeg can decode. */
function readAnimatedWebp(data: Buffer): {width: number; height: number; frames: Buffer[]} {
  expect(data.toString('latin1', 0, 4)).toBe('RIFF')
  expect(data.toString('latin1', 8, 12)).toBe('WEBP')
  const top = chunks(data, 12)
  const vp8x = top.find((chunk) => chunk.id === 'VP8X')!
  expect(vp8x.data[0] & 0x02).toBe(0x02) // the animation flag
  const width = vp8x.data.readUIntLE(4, 3) + 1
  const height = vp8x.data.readUIntLE(7, 3) + 1
  const frames = top
    .filter((chunk) => chunk.id === 'ANMF')
    .map((anmf) => {
      const inner = anmf.data.subarray(16)
      return Buffer.concat([Buffer.from('RIFF'), u32(inner.length + 4), Buffer.from('WEBP'), inner])
    })
  return {width, height, frames}
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4)
  buffer.writeUInt32LE(value)
  return buffer
}

// A few engine processes, two renders.
describe('a plugin format that is not video: animated WebP (counted by the plugin, served with its mimeType)', {timeout: 240_000}, () => {
  let dir: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-plugin-formats-'))
    env = {NODE_ENV: undefined, ENGINE_DATA_DIR: join(dir, 'data'), ENGINE_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config')}
    const linked = await runCli(['plugins', 'link', WEBP_PLUGIN, '--no-install'], {env})
    expect(linked.code, linked.stderr).toBe(0)
  })
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('renders every frame at the composition size, in the colour asked for', async () => {
    const output = join(dir, 'green.webp')
    const render = await runCli(['render', COLOR, '--format', 'webp-anim', '--variables', '{"color":"#00ff00"}', '-o', output, '--quiet'], {env})
    expect(render.code, render.stderr).toBe(0)
    expect(render.stderr).toBe('')
    const webp = readAnimatedWebp(await readFile(output))
    expect(webp).toMatchObject({width: 320, height: 180})
    expect(webp.frames).toHaveLength(30)
    const still = join(dir, 'frame-0.webp')
    await writeFile(still, webp.frames[0])
    expect(near(await pixelAt(still, 0, 160, 150), {r: 0, g: 255, b: 0})).toBe(true)
  })

  it('engine serve renders it and sends it as image/webp; the client checks it with the plugin counter', async () => {
    const serve = await spawnServe(['--root', FIXTURES], env)
    try {
      const response = await fetch(new URL('/render/stream', serve.url), {
        method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({composition: 'color.html', format: 'webp-anim', variables: {color: '#0000ff'}}),
      })
      const events = await response.text()
      const outputUrl = /"outputUrl":"([^"]+)"/.exec(events)?.[1]
      expect(outputUrl, events).toBeDefined()
      const output = await fetch(new URL(outputUrl!, serve.url))
      expect(output.status).toBe(200)
      expect(output.headers.get('content-type')).toBe('image/webp')
      expect(readAnimatedWebp(Buffer.from(await output.arrayBuffer())).frames).toHaveLength(30)

      const downloaded = join(dir, 'served.webp')
      const client = await runCli(['render', COLOR, '--server', serve.url, '--format', 'webp-anim', '-o', downloaded, '--quiet'], {env})
      expect(client.code, client.stderr).toBe(0)
      expect(readAnimatedWebp(await readFile(downloaded)).frames).toHaveLength(30)
    } finally {
      await serve.stop()
    }
  })
})
