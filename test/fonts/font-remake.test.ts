import {copyFile, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker} from '../../src/lib/capture/capture-worker.js'
import {documentNameOf} from '../../src/lib/capture/plan-page-requests.js'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {planRender} from '../../src/lib/plan/plan-render.js'
import type {RenderPlan} from '../../src/lib/plan/render-plan.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {PageRequests, type PageResponse} from '../../src/lib/sandbox/page-requests.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {testBrowser} from '../runtime/support/test-browser.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {overrideEnv} from '../support/override-env.js'

const ENGINE_FONT = (url: string) => url.includes('/__engine/fonts/')

/** The render's real request policy, except that each font file it picks fails its first `failures` requests. */
class FlakyFontRequests extends PageRequests {
  readonly asked = new Map<string, number>()

  constructor(
    plan: RenderPlan,
    private readonly failures: number,
    private readonly isFont: (url: string) => boolean = ENGINE_FONT,
  ) {
    super({html: plan.html, documentUrl: new URL(documentNameOf(plan), plan.baseUrl).href, projectDir: plan.projectDir, network: plan.network})
  }

  override async answer(url: string): Promise<PageResponse | 'browser' | 'blocked'> {
    if (this.isFont(url)) {
      const count = (this.asked.get(url) ?? 0) + 1
      this.asked.set(url, count)
      if (count <= this.failures) return {status: 503, headers: [{name: 'Content-Type', value: 'text/plain'}], body: Buffer.from('busy')}
    }
    return super.answer(url)
  }
}

describe('a font face that fails to load', {timeout: 120_000}, () => {
  let scratch: string
  let restoreEnv: () => void
  let plan: RenderPlan

  beforeAll(async () => {
    await ensureRuntimeBundle()
    scratch = await mkdtemp(join(tmpdir(), 'engine-font-remake-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(scratch, 'cache')})
    // Inter 400 and 700 and JetBrains Mono by family name, with Latin, Cyrillic, Greek and Vietnamese text.
    const compiled = await compileComposition(join(REPO_ROOT, 'test', 'fixtures', 'fonts', 'family.html'))
    plan = planRender(compiled, resolveRenderOptions({quality: 'draft'}), getFormat('png-sequence')).plan
  })
  afterAll(async () => {
    restoreEnv?.()
    await rm(scratch, {recursive: true, force: true})
  })

  async function firstFrame(requests?: PageRequests, of: RenderPlan = plan): Promise<Buffer> {
    const worker = await openCaptureWorker(of, {browser: testBrowser(), requests})
    try {
      expect(worker.ready.fonts.failed).toEqual([])
      expect(worker.ready.fonts.fallbacks).toEqual([])
      let image: Buffer | undefined
      await worker.captureRange({start: 0, end: 1}, (_index, bytes) => {
        image = bytes
      })
      return image!
    } finally {
      await worker.close()
    }
  }

  it('is made again from its bytes and draws the same frame as a face that loaded at once', async () => {
    const expected = await firstFrame()
    const flaky = new FlakyFontRequests(plan, 1)
    const frame = await firstFrame(flaky)
    // The text needs several faces; each failed once and was fetched again.
    expect(flaky.asked.size).toBeGreaterThanOrEqual(4)
    expect([...flaky.asked.values()].every((count) => count === 2)).toBe(true)
    expect(frame.equals(expected)).toBe(true)
  })

  it("a face of the project's own @font-face rule is made again too, and draws the same frame", async () => {
    const project = join(scratch, 'project')
    await mkdir(join(project, 'fonts'), {recursive: true})
    await copyFile(join(REPO_ROOT, 'node_modules', '@fontsource', 'playfair-display', 'files', 'playfair-display-latin-700-normal.woff2'), join(project, 'fonts', 'brand.woff2'))
    await writeFile(
      join(project, 'index.html'),
      `<!doctype html><html><head><style>
  @font-face { font-family: "Brand Serif"; font-weight: 700; src: url(fonts/brand.woff2) format("woff2"); }
  body { margin: 0 } h1 { font: 700 40px "Brand Serif", serif; margin: 20px }
</style></head><body><div id="root" data-composition-id="brand" data-width="320" data-height="180" data-duration="0.2" style="background:#fff;width:320px;height:180px"><h1>Hamburg</h1></div></body></html>`,
    )
    const brand = planRender(await compileComposition(join(project, 'index.html')), resolveRenderOptions({quality: 'draft'}), getFormat('png-sequence')).plan
    const expected = await firstFrame(undefined, brand)
    const flaky = new FlakyFontRequests(brand, 1, (url) => url.endsWith('/fonts/brand.woff2'))
    const frame = await firstFrame(flaky, brand)
    expect([...flaky.asked.values()]).toEqual([2])
    expect(frame.equals(expected)).toBe(true)
  })

  it('fails the page with FONT_FAILED, naming the family and the file, when its file never arrives', async () => {
    const broken = new FlakyFontRequests(plan, Number.POSITIVE_INFINITY)
    const opened = openCaptureWorker(plan, {browser: testBrowser(), requests: broken})
    await expect(opened).rejects.toMatchObject({code: 'FONT_FAILED', message: expect.stringMatching(/font "(Inter|JetBrains Mono)" \d+ normal did not load from @fontsource\//)})
    // Each face was asked for twice at most: the page load and one remake, never in a loop.
    expect(Math.max(...broken.asked.values())).toBe(2)
  })
})
