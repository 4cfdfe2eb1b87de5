import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {resolveColorGrading} from '../../src/lib/media/grading/resolve-color-grading.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {ffmpeg, rgbFrame} from './media-support.js'
import {PROCESSES} from '../support/timeouts.js'

const WIDTH = 320
const HEIGHT = 180
const GREY = 'grey.mp4'

function page(grading: string): string {
  return `<!doctype html>
<html>
<head><style>html, body { margin: 0; background: #000; } video { position: absolute; left: 0; top: 0; width: ${WIDTH}px; height: ${HEIGHT}px; }</style></head>
<body>
  <div id="root" data-composition-id="vignette" data-width="${WIDTH}" data-height="${HEIGHT}" data-duration="1">
    <video src="${GREY}" data-start="0" data-color-grading='${grading}'></video>
  </div>
</body>
</html>`
}

/** Mean of all channels over an 8x8 block whose top-left corner is (x, y). */
function blockMean(rgb: Buffer, x: number, y: number): number {
  let sum = 0
  for (let row = y; row < y + 8; row++) for (let column = x; column < x + 8; column++) for (let c = 0; c < 3; c++) sum += rgb[(row * WIDTH + column) * 3 + c]
  return sum / (8 * 8 * 3)
}

describe('grading preset vignettes', PROCESSES, () => {
  let dir: string
  let restoreEnv: (() => void) | undefined

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-vignette-test-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(dir, 'cache')})
    await ffmpeg(['-f', 'lavfi', '-i', `color=c=0x808080:size=${WIDTH}x${HEIGHT}:rate=30:duration=1`, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-crf', '0', join(dir, GREY)])
  })

  afterAll(async () => {
    restoreEnv?.()
    await rm(dir, {recursive: true, force: true})
  })

  async function cornersAndCentre(name: string, grading: string) {
    const composition = join(dir, `${name}.html`)
    await writeFile(composition, page(grading))
    const output = join(dir, 'out', `${name}.mp4`)
    await renderComposition({composition, options: resolveRenderOptions({quality: 'high', workers: 1, output})})
    const rgb = await rgbFrame(output, 15)
    const corners = [blockMean(rgb, 0, 0), blockMean(rgb, WIDTH - 8, 0), blockMean(rgb, 0, HEIGHT - 8), blockMean(rgb, WIDTH - 8, HEIGHT - 8)]
    return {corners, centre: blockMean(rgb, WIDTH / 2 - 4, HEIGHT / 2 - 4)}
  }

  it('vintage-wash darkens the corners of a flat grey frame, its centre keeps the graded grey', async () => {
    const {corners, centre} = await cornersAndCentre('vintage', '{"preset": "vintage-wash"}')
    for (const corner of corners) {
      // .18 at the corners, less a little for the 8x8 block reaching towards the centre.
      expect(corner).toBeLessThan(centre * 0.86)
      expect(corner).toBeGreaterThan(centre * 0.78)
    }
  })

  it('a preset without a vignette keeps the corners as bright as the centre', async () => {
    const {corners, centre} = await cornersAndCentre('warm', '{"preset": "warm-daylight"}')
    for (const corner of corners) expect(Math.abs(corner - centre)).toBeLessThanOrEqual(2)
  })

  it('scales the vignette with intensity and leaves presets without one at 0', () => {
    expect(resolveColorGrading('{"preset": "vintage-wash"}', {}, '<video>')?.vignette).toBeCloseTo(0.18)
    expect(resolveColorGrading('{"preset": "night-lift", "intensity": 0.5}', {}, '<video>')?.vignette).toBeCloseTo(0.06)
    expect(resolveColorGrading('{"preset": "food-pop"}', {}, '<video>')?.vignette).toBe(0)
  })
})
