import {existsSync} from 'node:fs'
import {readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderStill} from '../../src/lib/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {decodeFrame, near, pixelAt} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {FIXTURES, renderFixture, useScratchDir} from '../render/support.js'
import {PROCESSES} from '../support/timeouts.js'

const blocks = join(FIXTURES, 'blocks.html')
const rgba = (file: string) => decodeFrame(file, 0, 'format=rgba')

describe('engine still / renderStill', PROCESSES, () => {
  const scratch = useScratchDir()

  it('a still by frame and by time is exactly that frame of a full render (PNG, alpha kept)', async () => {
    const frames = join(scratch(), 'frames')
    await renderFixture('blocks.html', {format: 'png-sequence', fps: 10, output: frames})
    const options = (output: string) => resolveRenderOptions({fps: 10, output})
    const byFrame = await renderStill({composition: blocks, options: options(join(scratch(), 'f7.png')), still: {frame: 7}})
    expect(byFrame).toMatchObject({frame: 7, timeSeconds: 0.7, width: 320, height: 180, format: 'png'})
    // 0.75 s is inside frame 7 (0.7 <= t < 0.8); 0.7 is its first instant.
    const byTime = await renderStill({composition: blocks, options: options(join(scratch(), 't075.png')), still: {time: 0.75}})
    const atStart = await renderStill({composition: blocks, options: options(join(scratch(), 't07.png')), still: {time: 0.7}})
    expect([byTime.frame, atStart.frame]).toEqual([7, 7])
    const reference = await rgba(join(frames, 'frame_000007.png'))
    expect((await rgba(byFrame.output)).equals(reference)).toBe(true)
    expect((await rgba(byTime.output)).equals(reference)).toBe(true)
    const later = await renderStill({composition: blocks, options: options(join(scratch(), 'f15.png')), still: {frame: 15}})
    expect((await rgba(later.output)).equals(await rgba(join(frames, 'frame_000015.png')))).toBe(true)
    expect((await rgba(later.output)).equals(reference)).toBe(false)
    // Left half red before 1 s, the right half transparent (no background).
    expect(near(await pixelAt(byFrame.output, 0, 40, 40), {r: 255, g: 0, b: 0, a: 255})).toBe(true)
    expect((await pixelAt(byFrame.output, 0, 280, 40)).a).toBe(0)
  })

  it('JPEG is opaque at the requested quality; WebP keeps the alpha; variables apply', async () => {
    const jpeg = await renderStill({
      composition: blocks,
      options: resolveRenderOptions({output: join(scratch(), 'v.jpg')}),
      still: {time: 0.5, quality: 60},
      variables: {color: '#00ff00'},
    })
    expect(jpeg.format).toBe('jpeg')
    expect(near(await pixelAt(jpeg.output, 0, 40, 40), {g: 255, r: 0, b: 0, a: 255})).toBe(true)
    expect((await pixelAt(jpeg.output, 0, 280, 40)).a).toBe(255)
    const best = await renderStill({composition: blocks, options: resolveRenderOptions({output: join(scratch(), 'q100.jpg')}), still: {time: 0.5, quality: 100}})
    expect(best.bytes).toBeGreaterThan(jpeg.bytes)

    const webp = await renderStill({composition: blocks, options: resolveRenderOptions({output: join(scratch(), 'a.webp')}), still: {time: 1.2}})
    expect(webp.format).toBe('webp')
    expect(near(await pixelAt(webp.output, 0, 40, 40), {b: 255, r: 0, g: 0, a: 255})).toBe(true)
    expect((await pixelAt(webp.output, 0, 280, 40)).a).toBe(0)
  })

  it('CLI: --batch writes one image per row from a template, with a manifest', async () => {
    const dir = scratch()
    const rows = join(dir, 'rows.json')
    await import('node:fs/promises').then(({writeFile}) => writeFile(rows, JSON.stringify([{color: '#ff0000'}, {color: '#00ff00'}])))
    const result = await runCli(['still', blocks, '--time', '0.2', '--batch', rows, '--output', join(dir, 'thumbs/{index}.jpg'), '-q'])
    expect(result.code, result.stderr).toBe(0)
    expect((await readdir(join(dir, 'thumbs'))).sort()).toEqual(['0.jpg', '1.jpg', 'manifest.json', 'results.csv'])
    expect(near(await pixelAt(join(dir, 'thumbs/0.jpg'), 0, 40, 40), {r: 255, g: 0, b: 0})).toBe(true)
    expect(near(await pixelAt(join(dir, 'thumbs/1.jpg'), 0, 40, 40), {r: 0, g: 255, b: 0})).toBe(true)
  }, 120_000)

  it('CLI: hostile input exits non-zero naming the flag and the fix, and writes nothing', async () => {
    const output = join(scratch(), 'never.png')
    const gif = join(scratch(), 'never.gif')
    const cases: [string[], RegExp][] = [
      [['--frame', '999'], /--frame 999 is past the end: the composition has frames 0-59/],
      [['--time', '-1'], /--time: "-1" is not a time/],
      [['--time', 'soon'], /--time: "soon" is not a time/],
      [['--quality', '101'], /--quality: 101 is invalid/],
      [[], /--output: ".*never\.gif" must end in \.png, \.jpg, \.jpeg or \.webp/],
      [['--frame', '1', '--time', '1'], /--time=1 cannot also be provided when using --frame|cannot also be provided/],
    ]
    for (const [flags, message] of cases) {
      const result = await runCli(['still', blocks, '-o', flags.length === 0 ? gif : output, ...flags])
      expect(result.code, flags.join(' ')).not.toBe(0)
      expect(result.stderr, flags.join(' ')).toMatch(message)
    }
    expect(existsSync(output) || existsSync(gif)).toBe(false)
  }, 240_000)
})
