import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker} from '../../src/lib/capture/index.js'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {planRender} from '../../src/lib/plan/plan-render.js'
import type {FrameRange, RenderPlan} from '../../src/lib/plan/render-plan.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {DETERMINISTIC_PROFILE} from '../../src/lib/profile/render-profile.js'
import {resolveProfileBrowser} from '../../src/lib/profile/resolve-profile-browser.js'
import type {BrowserChoice} from '../../src/lib/browser/browser-choice.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {FIXTURES, frameFiles, renderUnderProfile, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

/** Captures `ranges` in the order given with one worker (its own browser process and page); images by frame index. */
async function captureChunks(plan: RenderPlan, browser: BrowserChoice, ranges: FrameRange[]): Promise<Map<number, Buffer>> {
  const worker = await openCaptureWorker(plan, {browser})
  const images = new Map<number, Buffer>()
  try {
    for (const range of ranges) await worker.captureRange(range, (index, image) => void images.set(index, image))
    return images
  } finally {
    await worker.close()
  }
}

describe('chunks under the deterministic profile', PROCESSES, () => {
  const scratch = useScratchDir()
  beforeAll(ensureRuntimeBundle)

  it('give the same frames in any order and any split as one whole render', async () => {
    const options = resolveRenderOptions({format: 'png-sequence', profile: 'deterministic'})
    const compiled = await compileComposition(join(FIXTURES, 'scene.html'))
    const {plan} = planRender(compiled, options, getFormat('png-sequence'))
    const {browser} = await resolveProfileBrowser(DETERMINISTIC_PROFILE)

    // Chunks as a distributed render makes them: each in its own browser, two at a time, the last
    // chunk first. One of them skips ahead over frames another chunk renders (7-12).
    const [last, firstAndThird] = await Promise.all([
      captureChunks(plan, browser, [{start: 20, end: 30}]),
      captureChunks(plan, browser, [{start: 0, end: 7}, {start: 13, end: 20}]),
    ])
    const second = await captureChunks(plan, browser, [{start: 7, end: 13}])
    const chunked = new Map([...last, ...firstAndThird, ...second])
    expect(chunked.size).toBe(30)

    const whole = join(scratch(), 'whole')
    await renderUnderProfile('scene.html', ['--format', 'png-sequence', '--workers', '1', '-o', whole])
    const rendered = await frameFiles(whole)
    for (let frame = 0; frame < 30; frame++) {
      const name = `frame_${String(frame).padStart(6, '0')}.png`
      expect(chunked.get(frame)!.equals(rendered.get(name)!), `frame ${frame}`).toBe(true)
    }
  })
})
