import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {renderBatch} from '../../src/lib/batch/index.js'
import {batchTextCheck} from '../../src/lib/batch/row-text-check.js'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {FIXTURES, sha256File, useScratchDir} from './support.js'

const ROWS = [
  {title: 'Ada', accent: '#ff5a36'},
  {title: 'Grace', accent: '#36c2ff'},
  {title: 'Alan', accent: '#8bd450'},
]
const settings = (input: RenderOptionsInput) => resolveRenderOptions({fps: 10, quality: 'draft', keyframeInterval: 0.5, cache: false, ...input})

// A batch renders a row in a browser an earlier row used, while the row before it still encodes and
// assembles, and two rows at once: none of that may change a row's bytes.
describe('batch rows are byte-identical to single renders of the same values', () => {
  const scratch = useScratchDir()
  let dir: string
  let composition: string
  let batchFile: string
  const singles: string[] = []
  beforeAll(async () => {
    dir = scratch()
    // batch-row.html: a row's title and accent, a GSAP timeline and a CSS animation, 1 s in two segments.
    composition = join(FIXTURES, 'batch-row.html')
    batchFile = join(dir, 'rows.json')
    await writeFile(batchFile, JSON.stringify(ROWS))
    for (const [index, variables] of ROWS.entries()) {
      const result = await renderComposition({composition, variables, options: settings({workers: 1, output: join(dir, 'single', `${index}.mp4`)})})
      singles.push(await sha256File(result.output))
    }
  }, 180_000)

  const batch = async (name: string, batchConcurrency: number, workers: number, checked = false) => {
    const pool = new BrowserPool()
    try {
      const options = settings({workers, batchConcurrency, output: join(dir, name, '{index}.mp4')})
      const textCheck = checked ? batchTextCheck(options, pool) : undefined
      if (textCheck) expect(textCheck.inRender).toBe(true)
      const summary = await renderBatch({
        composition,
        batchFile,
        cwd: dir,
        options,
        render: (request) => renderComposition({...request, pool}),
        ...(textCheck && {textCheck}),
      })
      expect(summary.counts.completed).toBe(ROWS.length)
    } finally {
      await pool.close()
    }
    return Promise.all(ROWS.map((_, index) => sha256File(join(dir, name, `${index}.mp4`))))
  }

  it('one row at a time with one worker, in warm pooled browsers', async () => {
    expect(new Set(singles).size).toBe(ROWS.length)
    expect(await batch('c1-w1', 1, 1)).toEqual(singles)
  }, 180_000)

  it('two rows at a time with two workers a row', async () => {
    expect(await batch('c2-w2', 2, 2)).toEqual(singles)
  }, 180_000)

  // The check pass seeks the row's own page through its clips and to the last frame before the
  // first frame is drawn: seeking draws nothing, so the capture that follows is a single render's.
  it('checked for text on the page each row is then captured from', async () => {
    expect(await batch('checked', 1, 2, true)).toEqual(singles)
  }, 180_000)
})
