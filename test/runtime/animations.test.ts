import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import {ensureRuntimeBundle} from './support/ensure-runtime-bundle.js'
import {pagePlan} from './support/page-plan.js'
import {testBrowser} from './support/test-browser.js'
import {PROCESSES} from '../support/timeouts.js'

interface Styles {
  css: string
  short: string
  delayed: string
  waapi: string
}

const styles = `({
  css: getComputedStyle(document.getElementById('css')).transform,
  short: getComputedStyle(document.getElementById('short')).transform,
  delayed: getComputedStyle(document.getElementById('delayed')).transform,
  waapi: getComputedStyle(document.getElementById('waapi')).opacity,
})`
const translate = (x: number) => `matrix(1, 0, 0, 1, ${x}, 0)`

describe('CSS animations and Web Animations', PROCESSES, () => {
  let worker: CaptureWorker
  const at = (frame: number) => worker.evaluate<Styles>(`__engine.seek(${frame}).then(() => ${styles})`)

  beforeAll(async () => {
    await ensureRuntimeBundle()
    worker = await openCaptureWorker(pagePlan('animations.html'), {browser: testBrowser()})
  })
  afterAll(() => worker?.close())

  it('shows every animation at the frame time', async () => {
    expect(await at(15)).toEqual({css: translate(25), short: translate(50), delayed: translate(0), waapi: '0.5'})
    expect(await at(45)).toEqual({css: translate(75), short: 'none', delayed: translate(50), waapi: '1'})
  })

  it('brings back an animation that had finished, on a backwards seek', async () => {
    await at(59)
    expect(await at(6)).toEqual({css: translate(10), short: translate(20), delayed: translate(0), waapi: '0.2'})
  })

  it('stays paused between seeks (nothing runs on wall-clock time, not even an autoplaying video)', async () => {
    const before = await at(9)
    const video = `[document.getElementById('video').paused, document.getElementById('video').currentTime]`
    const videoBefore = await worker.evaluate(video)
    // Nothing is left to run on wall-clock time: every animation is paused at its seeked time.
    expect(await worker.evaluate(`document.getAnimations().map((animation) => animation.playState)`)).toEqual(expect.arrayContaining(['paused']))
    expect(await worker.evaluate(`document.getAnimations().every((animation) => animation.playState === 'paused' || animation.playState === 'finished')`)).toBe(true)
    // And the page has run real tasks since (message events are not virtual time), with nothing changed.
    for (let task = 0; task < 5; task++) await worker.evaluate(`new Promise((resolve) => { const channel = new MessageChannel(); channel.port1.onmessage = resolve; channel.port2.postMessage(0) })`)
    expect(await worker.evaluate(styles)).toEqual(before)
    expect(await worker.evaluate(video)).toEqual(videoBefore)
    expect(videoBefore).toEqual([true, expect.any(Number)])
  })
})
