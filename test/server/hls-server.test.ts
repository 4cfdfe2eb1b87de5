import {execFile} from 'node:child_process'
import {copyFile, mkdir, readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {startServer, type RunningServer} from '../../src/lib/server/start-server.js'
import type {StreamEvent} from '../../src/lib/server/stream-events.js'
import {renderOnServer, type ServerRenderResult} from '../../src/lib/server-client/render-on-server.js'
import type {ServerConnection} from '../../src/lib/server-client/server-api.js'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {FIXTURES, useScratchDir} from '../render/support.js'
import {PROCESSES} from '../support/timeouts.js'
import {openStream} from './support/test-server.js'
import '../support/register-builtin-plugins.js'

const TOKEN = 'hls-test-token'
/** 1 s at 10 fps: red, then blue from 0.5 s; 0.5 s segments give two media segments of 5 frames. */
const CLIP = `<!doctype html>
<html data-composition-id="main" data-width="320" data-height="180" data-duration="1">
<body style="margin:0">
<div id="box" style="width:320px;height:180px;background:#ff0000"></div>
<script>setTimeout(() => (document.getElementById('box').style.background = '#0000ff'), 500)</script>
</body></html>`

describe('engine render --server and serve: HLS (a playlist and its segments)', PROCESSES, () => {
  const scratch = useScratchDir()
  let server: RunningServer
  let connection: ServerConnection
  let out: string
  let result: ServerRenderResult

  beforeAll(async () => {
    const root = join(scratch(), 'root')
    await mkdir(root)
    await writeFile(join(root, 'comp.html'), CLIP)
    await copyFile(join(FIXTURES, 'throwing.html'), join(root, 'throwing.html'))
    server = await startServer(await resolveServerSettings({port: 0, root, maxConcurrentRenders: 1, token: TOKEN}, {}))
    connection = {url: server.url, token: TOKEN}
    out = join(scratch(), 'out')
    await mkdir(out)
    // A longer earlier render of the same name left a third segment: the download replaces the set.
    await writeFile(join(out, 'clip_00002.ts'), 'stale')
    const options = resolveRenderOptions({output: join(out, 'clip.m3u8'), fps: 10, quality: 'draft', workers: 1, hlsSegmentSeconds: 0.5})
    result = await renderOnServer({server: server.url, token: TOKEN, composition: 'comp.html', options})
  })
  afterAll(() => server?.close())

  it('downloads the playlist and every segment under the output\'s name; ffprobe decodes every frame through the playlist', async () => {
    expect((await readdir(out)).sort()).toEqual(['clip.m3u8', 'clip_00000.ts', 'clip_00001.ts'])
    const playlist = await readFile(join(out, 'clip.m3u8'), 'utf8')
    expect([...playlist.matchAll(/^#EXTINF:([\d.]+),\n(.+)$/gm)].map((match) => [Number(match[1]), match[2]])).toEqual([
      [0.5, 'clip_00000.ts'],
      [0.5, 'clip_00001.ts'],
    ])
    const playlistPath = join(out, 'clip.m3u8')
    expect(await probeVideoStream(playlistPath)).toMatchObject({codec_name: 'h264', width: 320, height: 180, nb_read_frames: '10'})
    expect(result.totalFrames).toBe(10)
    expect(near(await pixelAt(playlistPath, 2, 160, 90), {r: 255, g: 0, b: 0})).toBe(true)
    expect(near(await pixelAt(playlistPath, 7, 160, 90), {r: 0, g: 0, b: 255})).toBe(true)
  })

  it('serves the playlist under the job\'s output URL, its segments beside it: ffprobe plays it over HTTP', async () => {
    const url = new URL(`/render/${result.requestId}/output/clip.m3u8`, server.url).href
    const {stdout} = await promisify(execFile)('ffprobe', [
      '-v', 'error', '-headers', `Authorization: Bearer ${TOKEN}\r\n`, '-count_frames', '-select_streams', 'v:0',
      '-show_entries', 'stream=codec_name,nb_read_frames', '-of', 'json', url,
    ])
    expect((JSON.parse(stdout) as {streams: unknown[]}).streams).toEqual([{codec_name: 'h264', nb_read_frames: '10'}])
  })

  it('the complete event lists the segments with their sizes and addresses; the bytes count all of them', async () => {
    const stream = openStream(connection, {composition: 'comp.html', format: 'hls', fps: 10, quality: 'draft', hlsSegmentSeconds: 0.5, outputName: 'named'})
    const final = (await stream.done) as Extract<StreamEvent, {type: 'complete'}>
    expect(final.outputUrl).toBe(`/render/${final.requestId}/output/named.m3u8`)
    expect(final.companionFiles?.map((file) => file.url)).toEqual([`/render/${final.requestId}/output/named_00000.ts`, `/render/${final.requestId}/output/named_00001.ts`])
    const playlistBytes = Number((await fetch(new URL(final.outputUrl, server.url), {headers: {authorization: `Bearer ${TOKEN}`}})).headers.get('content-length'))
    expect(final.bytes).toBe(playlistBytes + final.companionFiles!.reduce((sum, file) => sum + file.bytes, 0))
  })

  it('pageErrors: "warn" renders a page that throws and streams the error as a page-error warning', async () => {
    const stream = openStream(connection, {composition: 'throwing.html', fps: 10, quality: 'draft', pageErrors: 'warn'})
    const final = await stream.done
    expect(final).toMatchObject({type: 'complete', totalFrames: 4})
    expect(stream.events.filter((event) => event.type === 'warning' && event.code === 'page-error')).toEqual([
      expect.objectContaining({message: expect.stringMatching(/reading 'start'.*\(at throwing\.html:6\)/)}),
      expect.objectContaining({message: expect.stringMatching(/late decoration failed/)}),
    ])
  })
})
