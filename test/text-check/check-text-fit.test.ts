import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {checkTextFit} from '../../src/lib/render/check-text-fit.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {describeFinding} from '../../src/lib/render/text-findings.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const OVERFLOW = join(import.meta.dirname, 'fixtures/overflow.html')
const ELLIPSIS = join(import.meta.dirname, 'fixtures/ellipsis.html')
const LONG_NAME = 'Maximiliana Wolfeschlegelsteinhausen'

describe('the text check pass', PROCESSES, () => {
  const pool = new BrowserPool()
  afterAll(() => pool.close())
  const options = resolveRenderOptions({fps: 10, quality: 'draft', workers: 1})
  const check = (composition: string, variables?: Record<string, unknown>) => checkTextFit({composition, options, variables, pool})

  it('finds a long name cut off by its overflow:hidden card, with the variable and the pixels', async () => {
    const {findings, frames} = await check(OVERFLOW, {name: LONG_NAME})
    expect(frames).toEqual([0, 4, 9])
    expect(findings).toHaveLength(1)
    const [finding] = findings
    expect(finding).toMatchObject({kind: 'clipped', element: '#name', variable: 'name', clippedBy: '#stage > div.card', timeSeconds: 0})
    // The card is 140 px wide; the name at 20 px is well over twice that.
    expect(finding.overflowPx).toBeGreaterThan(140)
    const longer = await check(OVERFLOW, {name: `${LONG_NAME} the Second`})
    expect(longer.findings[0].overflowPx).toBeGreaterThan(finding.overflowPx + 40)
    expect(describeFinding(finding, 3)).toMatch(/^row 3: the text of #name \(variable "name"\) is cut off by #stage > div\.card: [\d.]+ px past its edge at 0 s \(frame 0\)$/)
  })

  it('finds a title wrapped past its data-max-lines: the lines over the limit, in pixels', async () => {
    const {findings} = await check(OVERFLOW, {title: 'A title long enough to wrap onto three or more lines here'})
    expect(findings).toHaveLength(1)
    const [finding] = findings
    expect(finding).toMatchObject({kind: 'max-lines', element: '#title', variable: 'title', maxLines: 2})
    expect(finding.lines).toBeGreaterThanOrEqual(3)
    // line-height 20px: each line past the second is 20 px.
    expect(finding.overflowPx).toBe(20 * (finding.lines! - 2))
  })

  it('finds text running out of the frame', async () => {
    const {findings} = await check(OVERFLOW, {tag: 'limited edition offer'})
    expect(findings).toEqual([expect.objectContaining({kind: 'outside-frame', element: '#tag', variable: 'tag'})])
    // It starts at x = 220 in a 320 px frame and is wider than 100 px.
    expect(findings[0].overflowPx).toBeGreaterThan(10)
    expect(findings[0].overflowPx).toBeLessThan(200)
  })

  it('finds text cut by an ellipsis and by line-clamp', async () => {
    const {findings} = await check(ELLIPSIS, {name: LONG_NAME, quote: 'A quote long enough to wrap onto three or more lines in this narrow box'})
    expect(findings.map(({kind, element, variable, clippedBy}) => ({kind, element, variable, clippedBy}))).toEqual([
      {kind: 'clipped', element: '#name', variable: 'name', clippedBy: '#name'},
      {kind: 'clipped', element: '#quote', variable: 'quote', clippedBy: '#quote'},
    ])
    // At least one 18 px line is hidden below the second.
    expect(findings[1].overflowPx).toBeGreaterThan(17)
  })

  it('reports nothing for text that fits, text hidden by a mask before its reveal, or a shrunk headline', async () => {
    expect((await check(OVERFLOW)).findings).toEqual([])
    expect((await check(ELLIPSIS)).findings).toEqual([])
    // data-fit="shrink": 32 px does not fit 200 px, a smaller size does.
    expect((await check(OVERFLOW, {headline: 'A much longer headline here'})).findings).toEqual([])
  })

  it('still reports a shrinking headline that does not fit even at its data-fit-min', async () => {
    const {findings} = await check(OVERFLOW, {headline: 'An extremely long headline that no size down to ten pixels can fit into two hundred'})
    expect(findings).toEqual([expect.objectContaining({kind: 'clipped', element: '#headline', variable: 'headline'})])
  })

  it("reports nothing on the repository's examples with their own rows", async () => {
    for (const example of ['hello', 'lower-third']) {
      const composition = join(REPO_ROOT, 'examples', example, 'index.html')
      const [header, ...lines] = (await readFile(join(REPO_ROOT, 'examples', example, 'rows.csv'), 'utf8')).trim().split('\n')
      const names = header.split(',')
      expect((await check(composition)).findings, example).toEqual([])
      for (const line of lines) {
        const cells = line.match(/("[^"]*"|[^,]*)(,|$)/g)!.map((cell) => cell.replace(/,$/, '').replace(/^"|"$/g, ''))
        const row = Object.fromEntries(names.map((name, index) => [name, cells[index]]).filter(([name, value]) => name !== 'outputKey' && value !== ''))
        expect((await check(composition, row)).findings, `${example} ${line}`).toEqual([])
      }
    }
  })

  it("checks only a still's frame", async () => {
    const {frames, findings} = await checkTextFit({composition: OVERFLOW, options: {...options, format: 'png-sequence'}, variables: {name: LONG_NAME}, pool, still: {frame: 5}})
    expect(frames).toEqual([5])
    expect(findings).toEqual([expect.objectContaining({kind: 'clipped', frame: 5, timeSeconds: 0.5})])
  })
})
