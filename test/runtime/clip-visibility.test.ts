import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import {ensureRuntimeBundle} from './support/ensure-runtime-bundle.js'
import {pagePlan} from './support/page-plan.js'
import {testBrowser} from './support/test-browser.js'
import {PROCESSES} from '../support/timeouts.js'

const ids = ['a', 'b', 'c', 'host', 'inner', 'forced', 'open', 'always'] as const
const visibility = `Object.fromEntries(${JSON.stringify(ids)}.map((id) => [id, getComputedStyle(document.getElementById(id)).visibility === 'visible']))`

// a: 0-1; b: follows a, 0.5 s long (written by a script); c: follows b, 1-1.5 → 1.5-2.5;
// host: 1-3; inner: 0.5 s into the host for 0.5 s → 1.5-2.0; open: from 2 s with no duration, to the end.
describe('clip visibility', PROCESSES, () => {
  let worker: CaptureWorker
  const at = (frame: number) => worker.evaluate<Record<(typeof ids)[number], boolean>>(`__engine.seek(${frame}).then(() => ${visibility})`)

  beforeAll(async () => {
    await ensureRuntimeBundle()
    worker = await openCaptureWorker(pagePlan('clips.html', {durationSeconds: 3, instances: {i1: {compositionId: 'part', variables: {}}}}), {
      browser: testBrowser(),
    })
  })
  afterAll(() => worker?.close())

  it('resolves every clip from the live DOM', () => {
    expect(worker.ready.timingFindings).toEqual([])
    expect(worker.ready.clipCount).toBe(6)
  })

  it('shows a clip from its first frame up to, not including, its end', async () => {
    expect(await at(0)).toEqual({a: true, b: false, c: false, host: false, inner: false, forced: false, open: false, always: true})
    expect(await at(29)).toMatchObject({a: true, b: false})
    expect(await at(30)).toMatchObject({a: false, b: true, host: true, inner: false, forced: true})
  })

  it('starts a clip where the one it names ends, using a duration a script wrote', async () => {
    expect(await at(44)).toMatchObject({b: true, c: false})
    expect(await at(45)).toMatchObject({b: false, c: true})
    expect(await at(74)).toMatchObject({c: true})
    expect(await at(75)).toMatchObject({c: false})
  })

  it('times clips inside a sub-composition from the instance start', async () => {
    expect(await at(44)).toMatchObject({inner: false})
    expect(await at(45)).toMatchObject({inner: true, host: true})
    expect(await at(60)).toMatchObject({inner: false, host: true})
  })

  it('shows a clip without a duration from its start to the last frame', async () => {
    expect(await at(59)).toMatchObject({open: false})
    expect(await at(60)).toMatchObject({open: true})
    expect(await at(89)).toMatchObject({open: true, c: false})
  })

  it('hides everything inside a hidden clip, even children that set visibility: visible', async () => {
    expect(await at(10)).toMatchObject({host: false, forced: false})
  })

  it('keeps the layout of hidden clips (visibility, not display)', async () => {
    await at(0)
    expect(await worker.evaluate(`document.getElementById('b').getBoundingClientRect().height > 0`)).toBe(true)
  })
})
