import {beforeAll, describe, expect, it} from 'vitest'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {openCaptureWorker} from '../../src/lib/capture/index.js'
import type {RenderPlan} from '../../src/lib/plan/render-plan.js'
import {decodeRgba, near, pixel} from '../runtime/support/decode-image.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {HEIGHT, pagePlan, WIDTH} from '../runtime/support/page-plan.js'
import {testBrowser} from '../runtime/support/test-browser.js'
import {until} from '../support/until.js'
import {PROCESSES} from '../support/timeouts.js'

const centre = (image: Buffer) => pixel(decodeRgba(image, WIDTH, HEIGHT), WIDTH / 2, HEIGHT / 2)

/** Renders one frame through the pool. */
async function renderFrame(pool: BrowserPool, plan: RenderPlan, frame: number) {
  const worker = await openCaptureWorker(plan, {browser: testBrowser(), pool})
  try {
    let image: Buffer | undefined
    await worker.captureRange({start: frame, end: frame + 1}, (_index, captured) => void (image = captured))
    return image!
  } finally {
    await worker.close()
  }
}

beforeAll(ensureRuntimeBundle)

describe('BrowserPool', PROCESSES, () => {
  it('reuses one warm browser process for consecutive renders, each with correct frames', async () => {
    const pool = new BrowserPool()
    const launched = new Set<number>()
    const track = pool.acquire.bind(pool)
    pool.acquire = async (choice, signal) => {
      const lease = await track(choice, signal)
      launched.add(lease.browser.process()!.pid!)
      return lease
    }
    try {
      const plan = pagePlan('colors.html', {durationSeconds: 3})
      const first = await renderFrame(pool, plan, 15)
      const second = await renderFrame(pool, plan, 45)
      const third = await renderFrame(pool, pagePlan('colors.html', {durationSeconds: 3}), 75)
      expect(launched.size).toBe(1)
      expect(near(centre(first), [255, 0, 0, 255])).toBe(true)
      expect(near(centre(second), [0, 255, 0, 255])).toBe(true)
      expect(near(centre(third), [0, 0, 255, 255])).toBe(true)
    } finally {
      await pool.close()
    }
  })

  it('launches a second process when two workers need one at the same time, and ends all on close', async () => {
    const pool = new BrowserPool()
    const plan = pagePlan('colors.html', {durationSeconds: 3})
    const [a, b] = await Promise.all([openCaptureWorker(plan, {browser: testBrowser(), pool}), openCaptureWorker(plan, {browser: testBrowser(), pool})])
    const processes = [a, b].map((worker) => (worker as unknown as {lease: {browser: {process(): {pid: number; exitCode: number | null; signalCode: string | null}}}}).lease.browser.process())
    expect(processes[0].pid).not.toBe(processes[1].pid)
    await Promise.all([a.close(), b.close()])
    await pool.close()
    const exited = (child: (typeof processes)[number]) => child.exitCode !== null || child.signalCode !== null
    expect(await until(() => processes.every(exited))).toBe(true)
  })
})
