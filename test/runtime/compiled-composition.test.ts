import {basename, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import {compileComposition} from '../../src/lib/compose/index.js'
import type {RenderPlan} from '../../src/lib/plan/render-plan.js'
import {ensureRuntimeBundle} from './support/ensure-runtime-bundle.js'
import {testBrowser} from './support/test-browser.js'
import {segmentFrames} from '../../src/lib/plan/segment-grid.js'
import {pageBaseUrl} from '../../src/lib/plan/plan-render.js'
import {DEFAULT_NETWORK} from '../../src/lib/sandbox/network-settings.js'
import {PROCESSES} from '../support/timeouts.js'

// The compiler's own fixture, compiled for real and run with the real runtime.
const composition = join(import.meta.dirname, '../fixtures/compositions/compile/index.html')

describe('a compiled composition in the runtime', PROCESSES, () => {
  let worker: CaptureWorker

  beforeAll(async () => {
    await ensureRuntimeBundle()
    const compiled = await compileComposition(composition)
    const fps = {num: 30, den: 1}
    const plan: RenderPlan = {
      html: compiled.html,
      baseUrl: pageBaseUrl(compiled.projectDir, compiled.file),
      documentName: basename(compiled.file),
      projectDir: compiled.projectDir,
      network: DEFAULT_NETWORK,
      runtime: {
        compositionId: compiled.compositionId,
        fps,
        durationSeconds: compiled.durationSeconds,
        width: compiled.width,
        height: compiled.height,
        variables: compiled.variables,
        instances: compiled.instances,
        seed: 1,
      },
      width: compiled.width,
      height: compiled.height,
      fps,
      totalFrames: 60,
      segmentFrames: segmentFrames(fps, 60),
      format: 'mp4',
      capture: {imageFormat: 'jpeg', jpegQuality: 80, transparent: false},
      encode: {quality: 'draft', gifLoop: 0, gpu: false},
    }
    worker = await openCaptureWorker(plan, {browser: testBrowser()})
  })
  afterAll(() => worker?.close())

  it('gives every instance its own variables', async () => {
    expect(await worker.evaluate(`document.querySelector('#first .label').textContent`)).toBe('first')
    expect(await worker.evaluate(`document.querySelector('#second .label').textContent`)).toBe('card default')
    expect(await worker.evaluate(`document.querySelector('#badge-host .badge-text').textContent`)).toBe('nested')
    expect(await worker.evaluate(`window.panelHeadRan`)).toBe('huge')
  })

  it('shows a host that follows another host only after it', async () => {
    const visible = (id: string) => `getComputedStyle(document.getElementById('${id}')).visibility === 'visible'`
    expect(await worker.evaluate(`__engine.seek(15).then(() => [${visible('first')}, ${visible('second')}])`)).toEqual([true, false])
    expect(await worker.evaluate(`__engine.seek(45).then(() => [${visible('first')}, ${visible('second')}])`)).toEqual([false, true])
  })
})
