import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {decodedFrameHashes, decodeFrame} from '../support/media.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'
import '../../src/lib/builtin-plugins.js'

const FIT = join(import.meta.dirname, 'fixtures/fit.html')
const HEADLINE = 'Wolfeschlegelsteinhausen-Bergdorff'

/** Lit pixels right of the 200 px headline box (x 220-320, y 100-150 in CSS pixels; the output is at scale 0.5). */
async function litRightOfBox(file: string, frame: number): Promise<number> {
  const gray = await decodeFrame(file, frame, 'format=gray,crop=50:25:110:50')
  expect(gray.length).toBe(50 * 25)
  return gray.filter((value) => value > 96).length
}

describe('data-fit="shrink"', PROCESSES, () => {
  const scratch = useScratchDir('engine-fit-', 'file')
  const pool = new BrowserPool()
  const outputs = new Map<string, string>()
  const workersUsed = new Map<string, number>()
  afterAll(() => pool.close())

  beforeAll(async () => {
    const dir = scratch()
    const render = async (name: string, workers: number, fit: boolean) => {
      const output = join(dir, `${name}.mp4`)
      const options = resolveRenderOptions({fps: 10, quality: 'draft', scale: 0.5, workers, keyframeInterval: 0.5, output})
      await renderComposition({
        composition: FIT,
        options,
        variables: {headline: HEADLINE, fit},
        pool,
        cores: 4,
        onEvent: (event) => {
          if (event.type === 'start') workersUsed.set(name, event.workers)
        },
      })
      outputs.set(name, output)
    }
    // Four half-second segments: with 2 and 3 workers, pages that loaded apart draw them.
    for (const workers of [1, 2, 3]) await render(`workers-${workers}`, workers, true)
    await render('author-size', 1, false)
  })

  it('draws the same frames with 1, 2 and 3 workers', async () => {
    expect([1, 2, 3].map((workers) => workersUsed.get(`workers-${workers}`))).toEqual([1, 2, 3])
    const one = await decodedFrameHashes(outputs.get('workers-1')!)
    expect(one).toHaveLength(20)
    expect(new Set(one).size).toBeGreaterThan(10)
    expect(await decodedFrameHashes(outputs.get('workers-2')!)).toEqual(one)
    expect(await decodedFrameHashes(outputs.get('workers-3')!)).toEqual(one)
  })

  it("shrinks the text into its box, below the author's size", async () => {
    // At the author's 40 px the name runs far past the box; shrunk, nothing is drawn past it.
    expect(await litRightOfBox(outputs.get('author-size')!, 0)).toBeGreaterThan(40)
    expect(await litRightOfBox(outputs.get('workers-1')!, 0)).toBe(0)
    expect(await litRightOfBox(outputs.get('workers-1')!, 19)).toBe(0)
  })
})
