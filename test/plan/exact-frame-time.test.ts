import {afterAll, describe, expect, it} from 'vitest'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import {frameTime, parseFps, type Fps} from '../../src/lib/plan/fps.js'
import {frameSeconds} from '../../src/lib/runtime/page/install-runtime.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {pagePlan} from '../runtime/support/page-plan.js'
import {testBrowser} from '../runtime/support/test-browser.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * Frame i shows the composition at i·den/num seconds: the double nearest that fraction. IEEE 754
 * division of two exactly held integers is correctly rounded, so `p / q` below is that double. A
 * time computed as i / (num / den) is one unit in the last place off for many frames at the NTSC
 * rates (frames 3, 6, 12, 1798 at 30000/1001; 9, 17, 1439 at 24000/1001), which is what this pins.
 */
const TABLE: Array<{fps: string; frames: Array<[frame: number, seconds: string]>}> = [
  {fps: '24000/1001', frames: [[0, '0/24000'], [1, '1001/24000'], [9, '9009/24000'], [17, '17017/24000'], [24, '24024/24000'], [1439, '1440439/24000']]},
  {fps: '30000/1001', frames: [[1, '1001/30000'], [3, '3003/30000'], [6, '6006/30000'], [12, '12012/30000'], [30, '30030/30000'], [1798, '1799798/30000']]},
  {fps: '60000/1001', frames: [[3, '3003/60000'], [25, '25025/60000'], [60, '60060/60000'], [3597, '3600597/60000']]},
  {fps: '25', frames: [[1, '1/25'], [3, '3/25'], [25, '25/25'], [1499, '1499/25']]},
]

const exact = (fraction: string): number => {
  const [p, q] = fraction.split('/').map(Number)
  return p / q
}

/** What a page seeked to each frame hands a registered timeline (the root composition starts at 0, so nothing is added). */
const TIMELINE_PAGE = `<!doctype html><html><body>
  <div data-composition-id="main" data-width="320" data-height="180" data-duration="150"></div>
  <script>
    window.seen = [];
    window.__timelines.main = {totalTime: function (t) { window.seen.push(t); }, duration: function () { return 150; }};
  </script>
</body></html>`

describe('frame times are the exact fraction i·den/num, in the plan and in the page', PROCESSES, () => {
  const workers: CaptureWorker[] = []
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()))
  })

  for (const {fps: rate, frames} of TABLE) {
    const fps: Fps = parseFps(rate)

    it(`${rate} fps: the plan's frameTime and the page runtime's frameSeconds give the table's times`, () => {
      for (const [frame, seconds] of frames) {
        expect(frameTime(frame, fps), `plan, frame ${frame}`).toBe(exact(seconds))
        expect(frameSeconds(frame, {fps} as Parameters<typeof frameSeconds>[1]), `runtime, frame ${frame}`).toBe(exact(seconds))
      }
    })

    it(`${rate} fps: a page seeked to each frame gives its timeline the time the plan computes`, async () => {
      await ensureRuntimeBundle()
      const worker = await openCaptureWorker(pagePlan(TIMELINE_PAGE, {fps, durationSeconds: 150}), {browser: testBrowser()})
      workers.push(worker)
      for (const [frame, seconds] of frames) {
        const shown = await worker.evaluate<number>(`__engine.seek(${frame}).then(() => seen[seen.length - 1])`)
        expect(shown, `page, frame ${frame}`).toBe(exact(seconds))
        expect(shown, `page and plan, frame ${frame}`).toBe(frameTime(frame, fps))
      }
    })
  }
})
