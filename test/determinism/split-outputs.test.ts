import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {decodedFrameHashes, ffprobe} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {FIXTURES, sha256File, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'
import {useBrowserPool} from '../support/browser-pool.js'
import type {BrowserPool} from '../../src/lib/browser/browser-pool.js'

/** Indices (presentation order) of the frames decoded as keyframes. */
async function keyframes(file: string): Promise<number[]> {
  const {frames} = (await ffprobe(file, ['-select_streams', 'v:0', '-show_entries', 'frame=key_frame'])) as {frames: {key_frame: number}[]}
  return frames.flatMap((frame, index) => (frame.key_frame === 1 ? [index] : []))
}

const SCENE = join(FIXTURES, 'scene.html')

/** `engine render scene.html` as a user runs it: the mp4 test's 1-worker render, which the in-process ones must equal. */
async function renderWithCli(format: string, workers: number, output: string): Promise<void> {
  const result = await runCli(['render', SCENE, '--quiet', '--format', format, '--workers', String(workers), '--keyframe-interval', '0.25', '-o', output])
  expect(result.code, result.stderr).toBe(0)
}

/** The same render in-process (the library the CLI calls, with the same options), without a Node start-up per render. */
async function renderInProcess(format: 'mp4' | 'webm' | 'mov' | 'gif', workers: number, output: string, pool: BrowserPool): Promise<void> {
  await renderComposition({composition: SCENE, options: resolveRenderOptions({format, workers, keyframeInterval: 0.25, output}), pool})
}

// scene.html: 30 frames of GSAP, CSS animation, random canvas and a timer clock. A 0.25 s keyframe
// interval makes a grid of 8-frame segments (8, 8, 8, 6): more segments than the largest worker count.
// Three renders per test: allow for a loaded machine.
describe('encoded outputs whatever the split (default quality, plain `engine render`)', PROCESSES, () => {
  const scratch = useScratchDir()
  const pool = useBrowserPool()

  for (const [format, decoder] of [
    ['mp4', []],
    ['webm', ['-c:v', 'libvpx-vp9']],
    ['mov', []],
    ['gif', []],
  ] as const) {
    it(`${format}: 1, 2 and 3 workers write byte-identical files that decode to identical frames`, async () => {
      const outputs: string[] = []
      for (const workers of [1, 2, 3]) {
        const output = join(scratch(), `workers-${workers}.${format}`)
        await (format === 'mp4' && workers === 1 ? renderWithCli(format, workers, output) : renderInProcess(format, workers, output, pool))
        outputs.push(output)
      }
      const [one, ...others] = await Promise.all(outputs.map(sha256File))
      expect(others).toEqual([one, one])

      const frames = await decodedFrameHashes(outputs[0], decoder)
      expect(frames).toHaveLength(30)
      expect(new Set(frames).size).toBe(30)
      expect(await decodedFrameHashes(outputs[2], decoder)).toEqual(frames)
      // The GOPs are the grid's segments (ProRes: every frame is a keyframe; GIF is one encode at assembly).
      if (format !== 'gif') expect(await keyframes(outputs[1])).toEqual(format === 'mov' ? frames.map((_, i) => i) : [0, 8, 16, 24])
    }, 300_000)
  }
})
