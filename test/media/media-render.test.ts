import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {ffprobe, probeVideoStream} from '../support/media.js'
import {audioSamples, ffmpeg, frameBrightness, meanDifference, onsetSeconds, rgbFrame} from './media-support.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {PROCESSES} from '../support/timeouts.js'

const CLIP = 'clïp-ü 1.mp4'
const BEEP = 'bïp.wav'
const SHORT = 'short.mp4'

function page(body: string, options: {variables?: string; script?: string; duration?: number} = {}): string {
  return `<!doctype html>
<html${options.variables ? ` data-composition-variables='${options.variables}'` : ''}>
<head><style>html, body { margin: 0; background: #000; } video { position: absolute; left: 0; top: 0; width: 320px; height: 180px; }</style></head>
<body>
  <div id="root" data-composition-id="media" data-width="320" data-height="180" data-duration="${options.duration ?? 2}">
    ${body}
  </div>
  ${options.script ? `<script>${options.script}</script>` : ''}
</body>
</html>`
}

describe('media in compositions', PROCESSES, () => {
  const pool = useBrowserPool()
  let dir: string
  let restoreEnv: (() => void) | undefined

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-media-test-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(dir, 'cache')})
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30:duration=2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-crf', '12', join(dir, CLIP)])
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30:duration=0.5', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-crf', '12', join(dir, SHORT)])
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=0.3', '-af', 'volume=0.5', join(dir, BEEP)])
  })

  afterAll(async () => {
    restoreEnv?.()
    await rm(dir, {recursive: true, force: true})
  })

  async function render(name: string, html: string, options: RenderOptionsInput = {}, variables?: Record<string, unknown>) {
    const composition = join(dir, `${name}.html`)
    await writeFile(composition, html)
    const output = options.output ?? join(dir, 'out', `${name}.${options.format === 'png-sequence' ? 'frames' : (options.format ?? 'mp4')}`)
    return renderComposition({composition, options: resolveRenderOptions({quality: 'draft', workers: 1, ...options, output}), variables, pool})
  }

  it('a script-assigned video shows the source frame of each time, and a delayed beep starts on time in a track as long as the video', async () => {
    const html = page(`<video id="v" data-start="0" data-duration="2"></video><audio id="beep" src="${BEEP}" data-start="0.5"></audio>`, {
      variables: `[{"id": "clip", "type": "string", "label": "Clip", "default": "${CLIP}"}]`,
      script: `document.getElementById('v').src = __engine.getVariables().clip`,
    })
    const {output} = await render('done-when', html, {workers: 2})

    const source = join(dir, CLIP)
    // Frame 30 is t = 1 s; the others check that every seek shows its own frame, not a neighbour's.
    for (const frame of [0, 1, 15, 30, 31, 59]) {
      const rendered = await rgbFrame(output, frame)
      const same = meanDifference(rendered, await rgbFrame(source, frame))
      expect(same).toBeLessThan(6)
      if (frame > 0) expect(same).toBeLessThan(meanDifference(rendered, await rgbFrame(source, frame - 1)))
      if (frame < 59) expect(same).toBeLessThan(meanDifference(rendered, await rgbFrame(source, frame + 1)))
    }
    expect(Math.min(...(await frameBrightness(output)))).toBeGreaterThan(40)

    const samples = await audioSamples(output)
    expect(Math.abs(onsetSeconds(samples) - 0.5)).toBeLessThan(0.021)
    // The container says exactly 2 s; a decoder may add the padding of the last AAC frame.
    expect(await probeDuration(output, 'a:0')).toBeCloseTo(2, 3)
    expect(await probeDuration(output, 'v:0')).toBeCloseTo(2, 3)
    expect(samples.length).toBeGreaterThanOrEqual(2 * 48_000)
    expect(samples.length).toBeLessThan(2 * 48_000 + 1024)
  })

  it('a video without data-duration lasts its natural length; a clip that follows it starts there; a short source holds its last frame', async () => {
    const html = page(
      `<video id="natural" src="${SHORT}" data-start="0" style="width: 160px"></video>
       <div id="after" data-start="natural" data-duration="1.5" style="position: absolute; left: 0; top: 0; width: 160px; height: 180px; background: #ff0000"></div>
       <video id="held" src="${SHORT}" data-start="0" data-duration="2" style="left: 160px; width: 160px"></video>`,
    )
    const {output} = await render('natural', html)
    const brightness = await frameBrightness(output)
    expect(brightness).toHaveLength(60)
    const red = async (frame: number) => {
      const rgb = await rgbFrame(output, frame)
      const at = (90 * 320 + 80) * 3
      return rgb[at] > 200 && rgb[at + 1] < 60 && rgb[at + 2] < 60
    }
    // 0.5 s of source at 30 fps: frames 0-14 show the video, frame 15 on shows the clip that follows it.
    expect(await red(14)).toBe(false)
    expect(await red(15)).toBe(true)
    // The right half holds the source's last frame until the end: never black.
    const crop = (rgb: Buffer) => Buffer.concat(Array.from({length: 180}, (_, y) => rgb.subarray((y * 320 + 170) * 3, (y * 320 + 310) * 3)))
    const heldEnd = await rgbFrame(output, 59)
    expect(meanDifference(crop(heldEnd), crop(await rgbFrame(output, 20)))).toBeLessThan(1)
    expect(Math.min(...brightness)).toBeGreaterThan(30)
  })

  it('png-sequence writes an audio.aac sidecar whose sound starts on time; webm carries Opus', async () => {
    const html = page(`<audio src="${BEEP}" data-start="0.25" data-volume="1"></audio>`, {duration: 1})
    const {output: frames} = await render('sidecar', html, {format: 'png-sequence'})
    const names = await readdir(frames)
    expect(names).toContain('audio.aac')
    expect(names.filter((name) => name.endsWith('.png'))).toHaveLength(30)
    expect(Math.abs(onsetSeconds(await audioSamples(join(frames, 'audio.aac'))) - 0.25)).toBeLessThan(0.021)

    const {output: webm} = await render('opus', html, {format: 'webm'})
    const samples = await audioSamples(webm)
    expect(Math.abs(onsetSeconds(samples) - 0.25)).toBeLessThan(0.021)
    const stream = await probeVideoStream(webm, false)
    expect(stream.codec_name).toBe('vp9')
    expect(stream.tags?.ALPHA_MODE ?? stream.tags?.alpha_mode).toBe('1')
    const audio = await ffprobe(webm, ['-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate'])
    expect(audio.streams).toEqual([{codec_name: 'opus', sample_rate: '48000'}])
  })

  it('an http(s) source is downloaded once; a loopback source is blocked; an unreachable URL fails naming it', async () => {
    const {createServer} = await import('node:http')
    const {readFile} = await import('node:fs/promises')
    let requests = 0
    const body = await readFile(join(dir, SHORT))
    const server = createServer((_request, response) => {
      requests++
      response.writeHead(200, {'Content-Type': 'video/mp4'}).end(body)
    })
    // The "public" host: a name the engine maps to another loopback address and treats as public.
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve))
    const port = (server.address() as {port: number}).port
    process.env.ENGINE_HOST_RESOLVER_RULES = 'MAP media.example.test 127.0.0.2'
    try {
      const html = page(`<video id="remote" src="http://media.example.test:${port}/clip.mp4" data-start="0"></video>`, {duration: 0.5})
      const first = await render('remote', html)
      await render('remote-again', html)
      // The media stage and the page's own <video> share one download, and the next render uses the cache.
      expect(requests).toBe(1)
      expect(first.fetchedUrls).toEqual([`http://media.example.test:${port}/clip.mp4`])
      const loopback = page(`<video id="local" src="http://127.0.0.2:${port}/clip.mp4" data-start="0"></video>`, {duration: 0.5})
      await expect(render('loopback', loopback)).rejects.toMatchObject({code: 'REQUEST_BLOCKED', message: expect.stringContaining('<video id="local">')})
      expect(requests).toBe(1)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
    try {
      const unreachable = page(`<video id="far" src="http://media.example.test:${port}/clip.mp4?v=2" data-start="0"></video>`, {duration: 0.5})
      await expect(render('unreachable', unreachable)).rejects.toMatchObject({
        code: 'MEDIA_FAILED',
        message: expect.stringContaining(`<video id="far">: cannot download http://media.example.test:${port}/clip.mp4?v=2`),
      })
    } finally {
      delete process.env.ENGINE_HOST_RESOLVER_RULES
    }
  })

  it('an HDR (PQ) source is tone-mapped to the sRGB page instead of showing washed-out', async () => {
    const hdr = join(dir, 'pq.mp4')
    await ffmpeg([
      '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30:duration=0.5',
      '-vf', 'zscale=t=smpte2084:p=bt2020:m=bt2020nc:tin=bt709:pin=bt709:min=bt709:npl=100,format=yuv420p10le',
      '-c:v', 'libx265', '-x265-params', 'log-level=none', '-color_trc', 'smpte2084', '-color_primaries', 'bt2020', '-colorspace', 'bt2020nc', hdr,
    ])
    // --sdr: without it the PQ source makes the output PQ (see hdr-output.test.ts); this checks the page's SDR frames.
    const {output} = await render('hdr-source', page(`<video src="pq.mp4" data-start="0"></video>`, {duration: 0.5}), {sdr: true})
    const sdr = await rgbFrame(join(dir, CLIP), 5)
    // Read as if it were SDR, the PQ signal is far off (~93 here); tone-mapped (hable) it is much closer.
    const untreated = meanDifference(await rgbFrame(hdr, 5), sdr)
    expect(meanDifference(await rgbFrame(output, 5), sdr)).toBeLessThan(untreated * 0.7)
  })

  it('an RGB-coded source (H.264 in gbrp, libx264rgb) keeps its colours, as jpg and as png frames', async () => {
    const quadrants = ['0xff0000', '0x00ff00', '0x0000ff', '0x808080'].map((colour, i) => `color=c=${colour}:s=160x90:r=30:d=0.5[q${i}]`)
    await ffmpeg([
      '-f', 'lavfi', '-i', `${quadrants.join(';')};[q0][q1]hstack[top];[q2][q3]hstack[bottom];[top][bottom]vstack`,
      '-c:v', 'libx264rgb', '-crf', '0', join(dir, 'rgb.mp4'),
    ])
    expect(await probeVideoStream(join(dir, 'rgb.mp4'), false)).toMatchObject({pix_fmt: 'gbrp'})
    const html = page(`<video src="rgb.mp4" data-start="0"></video>`, {duration: 0.5})
    for (const videoFrameFormat of ['jpg', 'png'] as const) {
      const {output} = await render(`rgb-${videoFrameFormat}`, html, {videoFrameFormat, quality: 'high'})
      const rgb = await rgbFrame(output, 5)
      const at = (x: number, y: number) => Array.from(rgb.subarray((y * 320 + x) * 3, (y * 320 + x) * 3 + 3))
      const expected = [[[80, 45], [255, 0, 0]], [[240, 45], [0, 255, 0]], [[80, 135], [0, 0, 255]], [[240, 135], [128, 128, 128]]] as const
      for (const [[x, y], colour] of expected) {
        const actual = at(x, y)
        expect(Math.max(...actual.map((value, i) => Math.abs(value - colour[i]))), `${videoFrameFormat} (${x}, ${y}): ${actual}`).toBeLessThan(12)
      }
    }
  })

  it('a missing source fails naming the element and the path', async () => {
    const html = page(`<video id="gone" src="nowhere/missing.mp4" data-start="0" data-duration="1"></video>`, {duration: 1})
    await expect(render('missing', html)).rejects.toMatchObject({code: 'MEDIA_NOT_FOUND', message: expect.stringMatching(/<video id="gone">.*nowhere\/missing\.mp4/)})
  })

  it('data-color-grading takes a $variable; an unknown preset lists the known ones', async () => {
    const grading = `{"preset": "\${look}", "adjust": {"exposure": "$lift"}}`
    const html = page(`<video src="${CLIP}" data-start="0" data-color-grading='${grading}'></video>`, {
      duration: 1,
      variables: `[{"id": "look", "type": "string", "label": "Look", "default": "mono-clean"}, {"id": "lift", "type": "number", "label": "Lift", "default": 0}]`,
    })
    const {output} = await render('graded', html)
    const rgb = await rgbFrame(output, 10)
    let spread = 0
    for (let i = 0; i < rgb.length; i += 3) spread = Math.max(spread, Math.max(rgb[i], rgb[i + 1], rgb[i + 2]) - Math.min(rgb[i], rgb[i + 1], rgb[i + 2]))
    expect(spread).toBeLessThan(24)

    await expect(render('graded-bad', html, {}, {look: 'sepia-dream'})).rejects.toMatchObject({
      code: 'COMPOSITION_INVALID',
      message: expect.stringMatching(/unknown preset "sepia-dream".*warm-daylight.*deep-contrast/),
    })
  })
})

async function probeDuration(file: string, stream: string): Promise<number> {
  const result = await ffprobe(file, ['-select_streams', stream, '-show_entries', 'stream=duration'])
  return Number((result.streams as {duration: string}[])[0].duration)
}
