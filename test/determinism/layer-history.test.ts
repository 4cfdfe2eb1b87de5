import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {decodedFrameHashes, near, pixelAt} from '../support/media.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {runCli} from '../support/run-cli.js'
import {FIXTURES, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

// raster-history.html: a will-change: transform title counts up at 2x, shrinks to 1x and rests.
// The browser keeps a layer's last raster scale, so a page that drew the count draws the resting
// title from its 2x raster, one that starts later from a 1x raster. A 0.25 s keyframe interval
// makes segments of 8 frames (8, 8, 8, 6): the count and the shrink are all in the first one.
describe('frames that depend on what the browser drew before (layers kept between frames)', PROCESSES, () => {
  const scratch = useScratchDir()
  const pool = useBrowserPool()

  it('are the same with 1, 2 and 3 workers', async () => {
    const composition = join(FIXTURES, 'raster-history.html')
    const hashes: string[][] = []
    for (const workers of [1, 2, 3]) {
      const output = join(scratch(), `workers-${workers}.mp4`)
      // 1 worker as a user runs it; 2 and 3 in-process with the same options, in warm browsers.
      if (workers === 1) {
        const result = await runCli(['render', composition, '--quiet', '--workers', '1', '--keyframe-interval', '0.25', '-o', output])
        expect(result.code, result.stderr).toBe(0)
      } else {
        await renderComposition({composition, options: resolveRenderOptions({workers, keyframeInterval: 0.25, output}), pool})
      }
      hashes.push(await decodedFrameHashes(output))
    }
    expect(hashes[0]).toHaveLength(30)
    for (const [index, frames] of hashes.entries()) {
      const differing = frames.flatMap((hash, frame) => (hash === hashes[0][frame] ? [] : [frame]))
      expect(differing, `frames of ${index + 1} workers that differ from 1 worker's`).toEqual([])
    }
    // The layers are rebuilt at each segment: a scrolled box keeps its offset (its green half shows).
    expect(near(await pixelAt(join(scratch(), 'workers-1.mp4'), 29, 295, 25), {r: 0, g: 255, b: 0}), 'scrolled box at the last frame').toBe(true)
  })
})
