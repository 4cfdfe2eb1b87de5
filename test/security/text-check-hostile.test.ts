import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {checkTextFit} from '../../src/lib/render/check-text-fit.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {describeFinding, MAX_FINDINGS} from '../../src/lib/render/text-findings.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

const page = (body: string, script = '') => `<!doctype html>
<html><head><meta charset="utf-8"><style>
  html, body { margin: 0; }
  #stage { position: relative; width: 320px; height: 180px; overflow: hidden; font: 16px sans-serif; }
  .box { width: 20px; height: 20px; overflow: hidden; white-space: nowrap; }
</style></head>
<body><div id="stage" data-composition-id="hostile" data-width="320" data-height="180" data-duration="0.5">${body}</div>
<script>${script}</script></body></html>`

// Control characters never reach a terminal or the manifest raw.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

describe('the text check against a hostile page', PROCESSES, () => {
  const scratch = useScratchDir('engine-text-check-hostile-', 'file')
  const pool = new BrowserPool()
  afterAll(() => pool.close())
  const check = async (html: string) => {
    const composition = join(scratch(), `page-${Math.random().toString(36).slice(2)}.html`)
    await writeFile(composition, html)
    return checkTextFit({composition, options: resolveRenderOptions({fps: 10, quality: 'draft', workers: 1}), pool})
  }

  it('names elements whose ids and classes hold terminal escapes without the escapes', async () => {
    const {findings} = await check(
      page(`<div class="box"><p id="x" class="a b">A name far too long for its box</p></div>`, `
        document.getElementById('x').id = '\\u001b[2J\\u001b]0;pwned\\u0007' + 'y'.repeat(5000);`),
    )
    expect(findings).toHaveLength(1)
    const message = describeFinding(findings[0], 0)
    expect(message).not.toMatch(CONTROL)
    expect(findings[0].element.length).toBeLessThanOrEqual(200)
  })

  it('keeps a row to a bounded number of findings, however many elements overflow', async () => {
    const boxes = Array.from({length: 400}, (_, index) => `<div class="box"><p>Overflowing text ${index}</p></div>`).join('')
    const {findings} = await check(page(boxes))
    expect(findings).toHaveLength(MAX_FINDINGS)
  })

  it('survives nonsense data-fit-min, data-max-lines and font sizes, and bounds the shrink search', async () => {
    const {findings} = await check(
      page(`
        <p data-fit="shrink" data-fit-min="-5" style="width: 50px; white-space: nowrap; font-size: 1000000px">Huge</p>
        <p data-fit="shrink" data-fit-min="1e308" style="width: 50px; white-space: nowrap">Min above the size</p>
        <p data-fit="shrink" data-fit-min="NaN" data-max-lines="abc" style="width: 50px">Words that wrap</p>
        <p data-max-lines="-3">Negative</p><p data-max-lines="1e9">Huge limit</p>
        <span data-fit="shrink">inline</span>`),
    )
    expect(findings.filter((finding) => finding.kind === 'max-lines')).toEqual([])
  })

  it('a script that replaces the DOM methods the check measures with fails the check with a typed error, not a bogus finding', async () => {
    const spoofed = `Range.prototype.getClientRects = function () { return [{left: -1e12, right: 1e12, top: 0, bottom: 10, width: 2e12, height: 10}] };`
    const error = await check(page('<p>Text</p>', spoofed)).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(isEngineError(error, 'PAGE_ERROR')).toBe(true)
    expect((error as Error).message).toContain("the page's text check returned something else than findings")
  })
})
