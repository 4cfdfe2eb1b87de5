import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderComposition, renderStill} from '../../src/lib/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {decodeFrame, probeVideoStream} from '../support/media.js'
import {useScratchDir} from '../render/support.js'
import {PROCESSES} from '../support/timeouts.js'

const TEXT = `<!doctype html>
<html><head><style>html, body { margin: 0; } #t { font: 28px/1 serif; color: #000; background: #fff; width: 320px; height: 180px; padding: 20px; box-sizing: border-box; }</style></head>
<body><div id="t" data-composition-id="text" data-width="320" data-height="180" data-duration="1">Sharp Text 0123 &amp; more small words here</div></body></html>`

/** Sum of absolute differences between horizontal and vertical neighbours of a grey image. */
function edgeEnergy(gray: Buffer, width: number): number {
  let energy = 0
  const height = gray.length / width
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const here = gray[y * width + x]!
      energy += Math.abs(here - gray[y * width + x + 1]!) ** 2 + Math.abs(here - gray[(y + 1) * width + x]!) ** 2
    }
  }
  return energy
}

describe('--scale: drawn at a device scale factor, not upscaled', PROCESSES, () => {
  const scratch = useScratchDir()

  it('--scale 2 doubles the size, and its text has more edge energy than the 1x frame upscaled', async () => {
    const composition = join(scratch(), 'text.html')
    await writeFile(composition, TEXT)
    const sharp = await renderStill({composition, options: resolveRenderOptions({output: join(scratch(), 'x2.png'), scale: 2})})
    const plain = await renderStill({composition, options: resolveRenderOptions({output: join(scratch(), 'x1.png')})})
    expect([sharp.width, sharp.height, plain.width, plain.height]).toEqual([640, 360, 320, 180])
    const native = await decodeFrame(sharp.output, 0, 'format=gray')
    const upscaled = await decodeFrame(plain.output, 0, 'scale=640:360:flags=bicubic,format=gray')
    expect(native.length).toBe(640 * 360)
    expect(upscaled.length).toBe(640 * 360)
    expect(edgeEnergy(native, 640)).toBeGreaterThan(edgeEnergy(upscaled, 640) * 1.2)

    const video = await renderComposition({composition, options: resolveRenderOptions({fps: 5, quality: 'draft', scale: 2, output: join(scratch(), 'x2.mp4')})})
    const stream = await probeVideoStream(video.output)
    expect([stream.width, stream.height]).toEqual([640, 360])
  })

  it('refuses scales that give odd mp4 sides or fractional pixels, and values out of range', async () => {
    const composition = join(scratch(), 'text.html')
    await writeFile(composition, TEXT)
    const attempt = (scale: number, format = 'mp4') =>
      renderComposition({composition, options: resolveRenderOptions({scale, format, output: join(scratch(), `bad-${scale}.${format === 'mp4' ? 'mp4' : 'webm'}`)})}).then(
        () => 'rendered',
        (error: Error) => error.message,
      )
    expect(await attempt(0.55)).toMatch(/--scale 0\.55: mp4 needs an even width and height, but the scaled output is 176x99 \(odd height\)/)
    expect(await attempt(0.33)).toMatch(/--scale 0\.33: 320x180 becomes .* not a whole number of pixels/)
    expect(() => resolveRenderOptions({scale: 17})).toThrow(/--scale: 17 is invalid/)
    expect(() => resolveRenderOptions({scale: 0.05})).toThrow(/--scale: 0.05 is invalid/)
  })
})
