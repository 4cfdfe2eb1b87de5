import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import {ensureRuntimeBundle} from './support/ensure-runtime-bundle.js'
import {pagePlan} from './support/page-plan.js'
import {testBrowser} from './support/test-browser.js'
import {PROCESSES} from '../support/timeouts.js'

interface ClockLog {
  loadNow: number
  loadPerf: number
  loadDate: string
  dateString: string
  zero?: number
  timeouts: {now: number; perf: number}[]
  intervals: number[]
  frames: number[]
  cancelledFired?: boolean
}

describe('virtual time in the page', PROCESSES, () => {
  let worker: CaptureWorker
  const seek = (frame: number) => worker.evaluate<ClockLog>(`__engine.seek(${frame}).then(() => log)`)

  beforeAll(async () => {
    await ensureRuntimeBundle()
    worker = await openCaptureWorker(pagePlan('clock.html'), {browser: testBrowser()})
  })
  afterAll(() => worker?.close())

  it('starts every clock at zero, on 2024-01-01, while the page loads', async () => {
    const log = await worker.evaluate<ClockLog>('log')
    expect(log.loadNow).toBe(0)
    expect(log.loadPerf).toBe(0)
    expect(log.loadDate).toBe('2024-01-01T00:00:00.000Z')
    expect(log.dateString).toContain('2024')
    expect(log.zero).toBe(0)
  })

  it('fires timers and intervals when a seek passes their due time, with the clock at that time', async () => {
    let log = await seek(12)
    expect(log.timeouts).toEqual([])
    expect(log.intervals).toEqual([200, 400])
    log = await seek(15)
    expect(log.timeouts).toEqual([{now: 500, perf: 500}])
    log = await seek(30)
    expect(log.intervals).toEqual([200, 400, 600])
    expect(log.cancelledFired).toBeUndefined()
  })

  it('passes the frame time to requestAnimationFrame and reports it from Date and performance.now', async () => {
    const log = await seek(45)
    expect(log.frames.at(-1)).toBe(1500)
    expect(await worker.evaluate('[Date.now() - Date.UTC(2024, 0, 1), performance.now(), new Date().toISOString()]')).toEqual([
      1500,
      1500,
      '2024-01-01T00:00:01.500Z',
    ])
  })

  it('does not fire timers again when seeking backwards, and says which frames a fresh page would show differently', async () => {
    // The last timer fired was the interval's third tick, due at 600 ms (frame 18).
    expect(await worker.evaluate('[17, 18, 45].map((frame) => __engine.canSeekTo(frame))')).toEqual([false, true, true])
    const log = await seek(3)
    expect(log.timeouts).toHaveLength(1)
    expect(log.frames.at(-1)).toBe(100)
    expect(await worker.evaluate('performance.now()')).toBe(100)
  })

  it('uses the fps of the plan, not a constant (frame 30 at 60 fps is 0.5 s)', async () => {
    const sixty = await openCaptureWorker(pagePlan('clock.html', {fps: {num: 60, den: 1}}), {browser: testBrowser()})
    try {
      expect(await sixty.evaluate('__engine.seek(30).then(() => performance.now())')).toBe(500)
      expect(await sixty.evaluate('__engine.seek(1).then(() => performance.now())')).toBeCloseTo(1000 / 60, 9)
    } finally {
      await sixty.close()
    }
  })
})

describe('seeded randomness', PROCESSES, () => {
  const sample = `__engine.seek(FRAME).then(() => [Math.random(), Math.random(), Array.from(crypto.getRandomValues(new Uint8Array(6))), crypto.randomUUID()])`
  const draw = (worker: CaptureWorker, frame: number) => worker.evaluate<unknown[]>(sample.replace('FRAME', String(frame)))

  it('gives frame i the same numbers whatever was rendered before, in any worker', async () => {
    await ensureRuntimeBundle()
    const a = await openCaptureWorker(pagePlan('clock.html'), {browser: testBrowser()})
    const b = await openCaptureWorker(pagePlan('clock.html'), {browser: testBrowser()})
    try {
      const first = await draw(a, 5)
      await draw(a, 9)
      await draw(a, 40)
      expect(await draw(a, 5)).toEqual(first)
      expect(await draw(b, 5)).toEqual(first)
      const other = await draw(b, 6)
      expect(other).not.toEqual(first)
      const [x, y] = first as number[]
      expect(x).toBeGreaterThanOrEqual(0)
      expect(x).toBeLessThan(1)
      expect(x).not.toBe(y)
      expect(first[3]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('changes with the render seed', async () => {
    const a = await openCaptureWorker(pagePlan('clock.html', {seed: 1}), {browser: testBrowser()})
    const b = await openCaptureWorker(pagePlan('clock.html', {seed: 2}), {browser: testBrowser()})
    try {
      expect(await draw(a, 5)).not.toEqual(await draw(b, 5))
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})
