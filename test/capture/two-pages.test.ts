import {subscribe, unsubscribe} from 'node:diagnostics_channel'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {FrameClock, type BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {closeBrowser, launchBrowser} from '../../src/lib/browser/launch-browser.js'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import type {FrameRange, RenderPlan} from '../../src/lib/plan/render-plan.js'
import {TIMELINE_CHANNEL, type TimelineSpan} from '../../src/lib/trace/timeline.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {pagePlan} from '../runtime/support/page-plan.js'
import {testBrowser} from '../runtime/support/test-browser.js'

/** Every frame of the plan from one worker, in order, in the given ranges. */
async function captureAll(plan: RenderPlan, pages: 1 | 2, ranges: FrameRange[] = [{start: 0, end: plan.totalFrames}]) {
  const worker = await openCaptureWorker(plan, {browser: testBrowser(), pages})
  const images = new Map<number, Buffer>()
  try {
    for (const range of ranges) await worker.captureRange(range, (index, image) => void images.set(index, image))
    return {images: [...images.keys()].sort((a, b) => a - b).map((index) => images.get(index)!), stats: worker.stats}
  } finally {
    await worker.close()
  }
}

/** The timeline's spans published while the test runs. */
function recordSpans() {
  const spans: TimelineSpan[] = []
  const onSpan = (span: unknown) => void spans.push(span as TimelineSpan)
  subscribe(TIMELINE_CHANNEL, onSpan)
  return {spans, stop: () => unsubscribe(TIMELINE_CHANNEL, onSpan)}
}

beforeAll(ensureRuntimeBundle)

describe('a worker alternating frames between two pages of one browser', () => {
  let open: CaptureWorker | undefined
  afterEach(async () => {
    await open?.close()
    open = undefined
  })

  it('captures the same images as one page (GSAP, CSS, WAAPI, canvas with random), both pages taking frames', async () => {
    const plan = pagePlan('motion.html', {durationSeconds: 1})
    const recorded = recordSpans()
    const one = await captureAll(plan, 1)
    const two = await captureAll(plan, 2)
    recorded.stop()
    expect(two.images).toHaveLength(30)
    for (let frame = 0; frame < 30; frame++) expect(two.images[frame].equals(one.images[frame]), `frame ${frame}`).toBe(true)
    expect(two.stats.pages).toBe(2)
    expect(one.stats.pages).toBe(1)
    // The pages take turns drawing, and each one seeks every frame.
    const worker = recorded.spans.find((span) => span.stage === 'capture' && span.page === 1)!.worker
    const spans = recorded.spans.filter((span) => span.worker === worker)
    const drawnBy = new Map(spans.filter((span) => span.stage === 'capture').map((span) => [span.frame!, span.page!]))
    for (let frame = 1; frame < 30; frame++) expect(drawnBy.get(frame), `frame ${frame}`).not.toBe(drawnBy.get(frame - 1))
    // A page that stops drawing (seen on loaded machines) is replaced and seeks again from the frame
    // it missed: then a frame is sought twice, but never skipped or out of order.
    for (const page of [0, 1]) {
      const seeks = spans.filter((span) => span.stage === 'seek' && span.page === page).map((span) => span.frame)
      const everyFrame = Array.from({length: 30}, (_, frame) => frame)
      if (two.stats.reloadedPages === 0) expect(seeks).toEqual(everyFrame)
      else expect([...new Set(seeks)]).toEqual(everyFrame)
    }
    // One begin-frame at a time in the process (two at once crash its GPU process), from both pages.
    const beginFrames = spans.filter((span) => span.stage === 'begin-frame').sort((a, b) => a.start - b.start)
    expect(new Set(beginFrames.map((span) => span.page))).toEqual(new Set([0, 1]))
    for (let i = 1; i < beginFrames.length; i++) expect(beginFrames[i].start).toBeGreaterThanOrEqual(beginFrames[i - 1].end)
  })

  it('gives scripts that carry state from frame to frame the same history as one page (ranges in any order)', async () => {
    // A canvas that is never cleared and a counter of animation frames: what a frame shows
    // depends on every frame the page saw before it.
    const html = `<!doctype html><html><body style="margin:0">
      <div id="root" data-composition-id="main" data-width="320" data-height="180" data-duration="1">
        <canvas id="c" width="320" height="180"></canvas>
      </div>
      <script>
        const ctx = document.getElementById('c').getContext('2d')
        let calls = 0
        function draw(t) {
          calls++
          ctx.fillStyle = 'hsl(' + (calls * 37 % 360) + ', 80%, 50%)'
          ctx.fillRect((calls * 23) % 300, (t / 7) % 160, 20, 20)
          requestAnimationFrame(draw)
        }
        requestAnimationFrame(draw)
      </script></body></html>`
    const plan = pagePlan(html, {durationSeconds: 1})
    const ranges = [{start: 15, end: 30}, {start: 0, end: 15}]
    const one = await captureAll(plan, 1, ranges)
    const two = await captureAll(plan, 2, ranges)
    expect(two.stats.pages).toBe(2)
    for (let frame = 0; frame < 30; frame++) expect(two.images[frame].equals(one.images[frame]), `frame ${frame}`).toBe(true)
  })

  it('reuses still frames as one page does and draws the same images', async () => {
    const plan = pagePlan('static.html', {durationSeconds: 2})
    const one = await captureAll(plan, 1)
    const two = await captureAll(plan, 2)
    for (let frame = 0; frame < 60; frame++) expect(two.images[frame].equals(one.images[frame]), `frame ${frame}`).toBe(true)
    expect(two.stats.reusedFrames).toBeGreaterThan(20)
  })

  it('keeps capturing with its first page when the second one fails to load, and does not pool that browser', async () => {
    const browser = await launchBrowser(testBrowser())
    try {
      // The second page's tab cannot be opened: its DevTools session fails.
      let targets = 0
      const faulty = new Proxy(browser, {
        get(target, property) {
          if (property !== 'target') {
            const value = Reflect.get(target, property)
            return typeof value === 'function' ? value.bind(target) : value
          }
          return () => {
            const real = target.target()
            if (++targets !== 2) return real
            return {createCDPSession: () => Promise.reject(new Error('no session for this tab'))}
          }
        },
      })
      const released: boolean[] = []
      const pool = {acquire: async () => ({browser: faulty, clock: new FrameClock(), release: async (healthy: boolean) => void released.push(healthy)})}
      const recorded = recordSpans()
      open = await openCaptureWorker(pagePlan('colors.html', {durationSeconds: 1}), {browser: testBrowser(), pages: 2, pool: pool as unknown as BrowserPool})
      recorded.stop()
      expect(recorded.spans.some((span) => span.stage === 'page-load' && span.page === 1 && span.failed)).toBe(true)
      const frames: number[] = []
      await open.captureRange({start: 0, end: 30}, (index) => void frames.push(index))
      expect(frames).toEqual(Array.from({length: 30}, (_, index) => index))
      expect(open.stats).toMatchObject({frames: 30, pages: 1})
      await open.close()
      // Whatever the failed page left behind stays out of the next worker's way.
      expect(released).toEqual([false])
    } finally {
      await closeBrowser(browser)
    }
  })
})
