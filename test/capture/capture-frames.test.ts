import {readFile} from 'node:fs/promises'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker} from '../../src/lib/capture/index.js'
import type {FrameRange, RenderPlan} from '../../src/lib/plan/render-plan.js'
import {decodeRgba, near, pixel} from '../runtime/support/decode-image.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {HEIGHT, PAGES_DIR, pagePlan, WIDTH} from '../runtime/support/page-plan.js'
import {testBrowser} from '../runtime/support/test-browser.js'
import {PROCESSES} from '../support/timeouts.js'
import {useBrowserPool} from '../support/browser-pool.js'

/** Warm browsers for the file's captures, as a render's workers share them. */
const pool = useBrowserPool()

/** Captures the ranges in the order given and returns the images by frame index. */
async function capture(plan: RenderPlan, ranges: FrameRange[], beginFrame = true) {
  const worker = await openCaptureWorker(plan, {browser: testBrowser(beginFrame), pool})
  const images = new Map<number, Buffer>()
  try {
    for (const range of ranges) await worker.captureRange(range, (index, image) => void images.set(index, image))
    return {images, stats: worker.stats}
  } finally {
    await worker.close()
  }
}

/** A black composition with a 20 px square of its own colour in each corner, placed from the viewport's edges. */
const CORNERS = `<!doctype html>
<html><head><style>
  html, body { margin: 0; background: #000; }
  #root { width: 100vw; height: 100vh; }
  .corner { position: fixed; width: 20px; height: 20px; }
</style></head>
<body><div id="root" data-composition-id="main" data-width="320" data-height="180" data-duration="1">
  <div class="corner" style="left: 0; top: 0; background: #f00"></div>
  <div class="corner" style="right: 0; top: 0; background: #0f0"></div>
  <div class="corner" style="left: 0; bottom: 0; background: #00f"></div>
  <div class="corner" style="right: 0; bottom: 0; background: #ff0"></div>
</div></body></html>`

const centre = (image: Buffer) => pixel(decodeRgba(image, WIDTH, HEIGHT), WIDTH / 2, HEIGHT / 2)

beforeAll(ensureRuntimeBundle)

describe('capturing frames', PROCESSES, () => {
  for (const beginFrame of [true, false]) {
    it(`paints each clip in its time window (${beginFrame ? 'begin-frame' : 'screenshot'} capture)`, async () => {
      const plan = pagePlan('colors.html', {durationSeconds: 3})
      const {images} = await capture(plan, [{start: 14, end: 16}, {start: 44, end: 46}, {start: 74, end: 76}, {start: 29, end: 31}], beginFrame)
      expect(near(centre(images.get(15)!), [255, 0, 0, 255])).toBe(true)
      expect(near(centre(images.get(45)!), [0, 255, 0, 255])).toBe(true)
      expect(near(centre(images.get(75)!), [0, 0, 255, 255])).toBe(true)
      expect(near(centre(images.get(29)!), [255, 0, 0, 255])).toBe(true)
      expect(near(centre(images.get(30)!), [0, 255, 0, 255])).toBe(true)
    })
  }

  it('renders the same frames whatever order the ranges come in (GSAP, CSS, WAAPI, canvas with random)', async () => {
    const plan = pagePlan('motion.html', {durationSeconds: 1})
    const inOrder = await capture(plan, [{start: 0, end: 20}])
    const shuffled = await capture(plan, [{start: 15, end: 20}, {start: 0, end: 5}, {start: 10, end: 15}, {start: 5, end: 10}])
    expect(shuffled.images.size).toBe(20)
    for (let frame = 0; frame < 20; frame++) expect(shuffled.images.get(frame)!.equals(inOrder.images.get(frame)!), `frame ${frame}`).toBe(true)
    expect(new Set([...inOrder.images.values()].map((image) => image.toString('base64'))).size).toBe(20)
  })

  it('reuses still frames and still matches a capture that redraws every frame', async () => {
    const plan = pagePlan('static.html', {durationSeconds: 2})
    const sequential = await capture(plan, [{start: 0, end: 60}])
    expect(sequential.stats.frames).toBe(60)
    expect(sequential.stats.reusedFrames).toBeGreaterThan(25)

    // Jumping to a frame that looks different before each one forces a full redraw of it.
    const reference = await capture(
      plan,
      Array.from({length: 60}, (_, frame) => [{start: (frame + 30) % 60, end: ((frame + 30) % 60) + 1}, {start: frame, end: frame + 1}]).flat(),
    )
    for (let frame = 0; frame < 60; frame++) expect(sequential.images.get(frame)!.equals(reference.images.get(frame)!), `frame ${frame}`).toBe(true)

    // The sub-composition and the dimming layer appear on frame 30 exactly, with no animation.
    const at = (frame: number, x: number, y: number) => pixel(decodeRgba(sequential.images.get(frame)!, WIDTH, HEIGHT), x, y)
    expect(near(at(29, 200, 100), [0x33, 0x33, 0x44, 255])).toBe(true)
    expect(near(at(30, 200, 100), [0x40, 0xe0, 0x80, 255])).toBe(true)
    expect(near(at(29, 60, 100), [0x33, 0x33, 0x44, 255])).toBe(true)
    expect(near(at(30, 60, 100), [0x1a, 0x1a, 0x22, 255])).toBe(true)
  })

  it('below half scale, draws with begin-frames and copies each frame once drawn: still frames reused, every frame as a full redraw', async () => {
    const plan = {...pagePlan('static.html', {durationSeconds: 2}), scale: 0.25}
    const sequential = await capture(plan, [{start: 0, end: 60}])
    expect(sequential.stats.reusedFrames).toBeGreaterThan(25)
    const reference = await capture(
      plan,
      Array.from({length: 60}, (_, frame) => [{start: (frame + 30) % 60, end: ((frame + 30) % 60) + 1}, {start: frame, end: frame + 1}]).flat(),
    )
    for (let frame = 0; frame < 60; frame++) expect(sequential.images.get(frame)!.equals(reference.images.get(frame)!), `frame ${frame}`).toBe(true)
    const at = (frame: number, x: number, y: number) => pixel(decodeRgba(sequential.images.get(frame)!, WIDTH / 4, HEIGHT / 4), x / 4, y / 4)
    expect(near(at(29, 200, 100), [0x33, 0x33, 0x44, 255])).toBe(true)
    expect(near(at(30, 200, 100), [0x40, 0xe0, 0x80, 255])).toBe(true)
  })

  it('loads images relative to the composition before the first frame, and images added later before their frame', async () => {
    const {images} = await capture(pagePlan('images.html'), [{start: 0, end: 1}, {start: 14, end: 16}])
    const first = decodeRgba(images.get(0)!, WIDTH, HEIGHT)
    expect(near(pixel(first, 40, 40), [0, 0xc0, 0, 255])).toBe(true)
    expect(near(pixel(first, 220, 120), [255, 255, 255, 255])).toBe(true)
    expect(near(pixel(decodeRgba(images.get(14)!, WIDTH, HEIGHT), 220, 120), [255, 255, 255, 255])).toBe(true)
    expect(near(pixel(decodeRgba(images.get(15)!, WIDTH, HEIGHT), 220, 120), [0xc0, 0, 0xc0, 255])).toBe(true)
  })

  it('waits for a slow image a timer adds, even when the seek awaits other work after the timer', async () => {
    const magenta = await readFile(join(PAGES_DIR, 'assets', 'magenta.png'))
    const server = createServer((_request, response) => {
      setTimeout(() => response.writeHead(200, {'content-type': 'image/png'}).end(magenta), 400)
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    const {port} = server.address() as AddressInfo
    try {
      const html = (await readFile(join(PAGES_DIR, 'images.html'), 'utf8')).replace('assets/magenta.png', `http://127.0.0.1:${port}/magenta.png`)
      // A loopback server: reachable because this plan allows private addresses.
      const {images} = await capture(pagePlan(html, {network: {publicUrls: true, privateAddresses: true}}), [{start: 14, end: 16}])
      expect(near(pixel(decodeRgba(images.get(14)!, WIDTH, HEIGHT), 220, 120), [255, 255, 255, 255])).toBe(true)
      expect(near(pixel(decodeRgba(images.get(15)!, WIDTH, HEIGHT), 220, 120), [0xc0, 0, 0xc0, 255])).toBe(true)
    } finally {
      server.close()
    }
  })

  it('captures PNG with alpha 0 where nothing is painted when the plan is transparent', async () => {
    const plan = pagePlan('alpha.html', {durationSeconds: 1, imageFormat: 'png', transparent: true})
    const {images} = await capture(plan, [{start: 0, end: 1}])
    const image = images.get(0)!
    expect(image.subarray(1, 4).toString('latin1')).toBe('PNG')
    const rgba = decodeRgba(image, WIDTH, HEIGHT)
    expect(pixel(rgba, 2, 2)[3]).toBe(0)
    expect(pixel(rgba, 300, 170)[3]).toBe(0)
    expect(pixel(rgba, 160, 90)).toEqual([255, 0, 0, 255])
    const glass = pixel(rgba, 30, 30)
    expect(glass[2]).toBe(255)
    expect(glass[3]).toBeGreaterThanOrEqual(126)
    expect(glass[3]).toBeLessThanOrEqual(129)
  })

  for (const beginFrame of [true, false]) {
    it(`draws the whole composition, up to its far corners, with the page's viewport at its size (${beginFrame ? 'begin-frame' : 'screenshot'} capture)`, async () => {
      const plan = pagePlan(CORNERS, {durationSeconds: 1})
      const worker = await openCaptureWorker(plan, {browser: testBrowser(beginFrame), pool})
      try {
        expect(await worker.evaluate('[innerWidth, innerHeight, document.documentElement.clientWidth, matchMedia("(width: 320px)").matches]')).toEqual([WIDTH, HEIGHT, WIDTH, true])
        let image: Buffer | undefined
        await worker.captureRange({start: 0, end: 1}, (_index, captured) => void (image = captured))
        const rgba = decodeRgba(image!, WIDTH, HEIGHT)
        expect(near(pixel(rgba, 4, 4), [255, 0, 0, 255])).toBe(true)
        expect(near(pixel(rgba, WIDTH - 5, 4), [0, 255, 0, 255])).toBe(true)
        expect(near(pixel(rgba, 4, HEIGHT - 5), [0, 0, 255, 255])).toBe(true)
        expect(near(pixel(rgba, WIDTH - 5, HEIGHT - 5), [255, 255, 0, 255])).toBe(true)
        expect(near(pixel(rgba, WIDTH / 2, HEIGHT / 2), [0, 0, 0, 255])).toBe(true)
      } finally {
        await worker.close()
      }
    })
  }

  it('captures JPEG at the plan size with an opaque white default background', async () => {
    const plan = pagePlan('alpha.html', {durationSeconds: 1})
    const {images} = await capture(plan, [{start: 0, end: 1}])
    const rgba = decodeRgba(images.get(0)!, WIDTH, HEIGHT)
    expect(near(pixel(rgba, 2, 2), [255, 255, 255, 255])).toBe(true)
  })
})
