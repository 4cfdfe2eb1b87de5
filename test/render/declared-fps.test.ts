import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {lintComposition} from '../../src/lib/lint/lint-composition.js'
import {planRender} from '../../src/lib/plan/plan-render.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {estimatePrice} from '../../packages/lambda/src/lib/lambda/estimate-price.js'
import {mkdir} from 'node:fs/promises'
import {loadPreviewState} from '../../src/lib/preview/load-preview-state.js'
import {probeVideoStream} from '../support/media.js'
import {PROCESSES} from '../support/timeouts.js'
import {useScratchDir} from './support.js'
import '../support/register-builtin-plugins.js'

const page = (fps: string) => `<!doctype html>
<html data-composition-id="main" data-width="320" data-height="180" data-duration="0.5" data-fps="${fps}">
<body style="margin:0;background:#204080"><div style="width:40px;height:40px;background:#fff"></div></body></html>`

describe("a root's data-fps is the render's rate unless an option names one", PROCESSES, () => {
  const scratch = useScratchDir()
  let sixty: string

  beforeAll(async () => {
    sixty = join(scratch(), 'sixty.html')
    await writeFile(sixty, page('60'))
  })

  async function render(composition: string, options: RenderOptionsInput) {
    const events: RenderEvent[] = []
    const result = await renderComposition({composition, options: resolveRenderOptions({quality: 'draft', scale: 0.5, ...options}), onEvent: (event) => events.push(event)})
    const start = events.find((event) => event.type === 'start')
    return {result, start: start?.type === 'start' ? start : undefined, warnings: events.filter((event) => event.type === 'warning')}
  }

  it('renders data-fps="60" at 60 frames/s, twice the frames of --fps 30, and says where each rate came from', async () => {
    const declared = await render(sixty, {output: join(scratch(), 'declared.mp4')})
    const flagged = await render(sixty, {output: join(scratch(), 'flagged.mp4'), fps: 30})
    const [a, b] = await Promise.all([probeVideoStream(declared.result.output), probeVideoStream(flagged.result.output)])
    expect(a.r_frame_rate).toBe('60/1')
    expect(Number(a.nb_read_frames)).toBe(30)
    expect(b.r_frame_rate).toBe('30/1')
    expect(Number(b.nb_read_frames)).toBe(15)
    expect(declared.start).toMatchObject({fps: '60', fpsSource: 'composition', totalFrames: 30})
    expect(flagged.start).toMatchObject({fps: '30', fpsSource: 'flag', totalFrames: 15})
  })

  it('caps a declared 60 at 30 for gif and names data-fps in the note', async () => {
    const gif = await render(sixty, {output: join(scratch(), 'capped.gif')})
    expect(Number((await probeVideoStream(gif.result.output)).nb_read_frames)).toBe(15)
    expect(gif.warnings).toContainEqual(expect.objectContaining({code: 'fps-capped', message: expect.stringContaining('data-fps="60" on the root: gif plays at most 30 frames/s')}))
  })

  it("a Lambda render's plan takes the same rate: the estimate counts data-fps frames unless config.fps names one", async () => {
    const site = join(scratch(), 'site')
    await mkdir(site)
    await writeFile(join(site, 'index.html'), page('60'))
    expect(await estimatePrice({projectDir: site})).toMatchObject({frames: 30})
    expect(await estimatePrice({projectDir: site, config: {fps: 30}})).toMatchObject({frames: 15})
  })

  it('the preview plays at data-fps unless --fps names a rate', async () => {
    expect(await loadPreviewState({file: sixty, documentPath: '/sixty.html'}, 1)).toMatchObject({fps: {num: 60, den: 1}, fpsSource: 'composition', composition: {totalFrames: 30}})
    expect(await loadPreviewState({file: sixty, documentPath: '/sixty.html', fps: {num: 24, den: 1}}, 1)).toMatchObject({fps: {num: 24, den: 1}, fpsSource: 'flag', composition: {totalFrames: 12}})
  })

  it('plans 30 frames/s from the default when the root declares none, and a rational data-fps exactly', async () => {
    const none = join(scratch(), 'none.html')
    const ntsc = join(scratch(), 'ntsc.html')
    await writeFile(none, page('60').replace(' data-fps="60"', ''))
    await writeFile(ntsc, page('30000/1001'))
    const mp4 = getFormat('mp4')
    const plain = planRender({...(await compileComposition(none)), durationSeconds: 0.5}, resolveRenderOptions({}), mp4)
    expect(plain.fpsSource).toBe('default')
    expect(plain.plan.fps).toEqual({num: 30, den: 1})
    const rational = planRender({...(await compileComposition(ntsc)), durationSeconds: 0.5}, resolveRenderOptions({}), mp4)
    expect(rational).toMatchObject({fpsSource: 'composition', plan: {fps: {num: 30000, den: 1001}, totalFrames: 15}})
  })

  it('refuses a data-fps outside 1-240 at planning and in lint, naming the attribute and the value', async () => {
    const bad = join(scratch(), 'bad.html')
    await writeFile(bad, page('500'))
    const compiled = await compileComposition(bad)
    expect(() => planRender({...compiled, durationSeconds: 0.5}, resolveRenderOptions({}), getFormat('mp4'))).toThrow(/data-fps="500" on the root composition is out of range/)
    const findings = await lintComposition(bad)
    expect(findings).toContainEqual(expect.objectContaining({code: 'composition-attribute-invalid', severity: 'error', line: 2, message: expect.stringContaining('data-fps="500"')}))
    const gifFindings = await lintComposition(sixty, {maxFps: 30, format: 'gif'})
    expect(gifFindings).toContainEqual(expect.objectContaining({code: 'fps-capped', severity: 'warning', message: expect.stringContaining('gif plays at most 30 frames/s')}))
    expect(await lintComposition(sixty)).toEqual([])
  })
})
