import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {decodedFrameHashes} from '../support/media.js'
import type {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {expectSameFrames, FIXTURES, frameFiles, renderUnderProfile, useScratchDir} from './support.js'

// scene.html: a GSAP timeline and a plain gsap.to tween, a CSS animation, canvas drawn in
// requestAnimationFrame with Math.random, a Date-driven clock in a timer, and text in the generic families.
/** The same render in-process, in the file's warm browsers: no Node start-up or browser launch per render. */
async function renderInProcess(options: RenderOptionsInput, pool: BrowserPool): Promise<void> {
  await renderComposition({composition: join(FIXTURES, 'scene.html'), options: resolveRenderOptions({profile: 'deterministic', ...options}), pool})
}

describe('the deterministic profile', () => {
  const scratch = useScratchDir()
  const pool = useBrowserPool()

  it('renders byte-identical PNG frames twice in a row and with 1 or 2 workers', async () => {
    const [first, again, parallel] = ['first', 'again', 'parallel'].map((name) => join(scratch(), name))
    // Through the CLI once, as a user runs it; the repeat and the parallel render must equal it.
    await renderUnderProfile('scene.html', ['--format', 'png-sequence', '--workers', '1', '-o', first])
    await renderInProcess({format: 'png-sequence', workers: 1, output: again}, pool)
    await renderInProcess({format: 'png-sequence', workers: 2, output: parallel}, pool)
    const frames = await frameFiles(first)
    expect(frames.size).toBe(30)
    expectSameFrames(await frameFiles(again), frames)
    expectSameFrames(await frameFiles(parallel), frames)
    // Everything moves: a frame that repeated its neighbour would hide a clock that stood still.
    expect(new Set([...frames.values()].map((bytes) => bytes.toString('base64'))).size).toBe(30)
  })

  it('renders mp4 files whose decoded frames are identical with 1 and 2 workers', async () => {
    const [one, two] = ['one.mp4', 'two.mp4'].map((name) => join(scratch(), name))
    await renderInProcess({crf: 0, workers: 1, output: one}, pool)
    await renderInProcess({crf: 0, workers: 2, output: two}, pool)
    const hashes = await decodedFrameHashes(one)
    expect(hashes).toHaveLength(30)
    expect(await decodedFrameHashes(two)).toEqual(hashes)
    // x264's bits depend on its thread count: every segment is encoded with the same fixed count,
    // not the machine's (x264 would pick 1.5 x the cores), as x264 records in each segment's settings.
    for (const file of [one, two]) {
      const threads = [...(await readFile(file)).toString('latin1').matchAll(/ threads=(\d+) /g)].map((match) => match[1])
      expect(threads.length, file).toBeGreaterThan(0)
      expect(new Set(threads), file).toEqual(new Set(['2']))
    }
  })
})
