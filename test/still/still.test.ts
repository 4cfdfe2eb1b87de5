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
import {useBrowserPool} from '../support/browser-pool.js'

const blocks = join(FIXTURES, 'blocks.html')
const rgba = (file: string) => decodeFrame(file, 0, 'format=rgba')

describe('engine still / renderStill', PROCESSES, () => {
  const pool = useBrowserPool()
  const scratch = useScratchDir()

  it('a still by frame and by time is exactly that frame of a full render (PNG, alpha kept)', async () => {
    const frames = join(scratch(), 'frames')
    await renderFixture('blocks.html', {format: 'png-sequence', fps: 10, output: frames}, undefined, pool)
    const options = (output: string) => resolveRenderOptions({fps: 10, output})
    const byFrame = await renderStill({composition: blocks, options: options(join(scratch(), 'f7.png')), still: {frame: 7}, pool})
    expect(byFrame).toMatchObject({frame: 7, timeSeconds: 0.7, width: 320, height: 180, format: 'png'})
    // 0.75 s is inside frame 7 (0.7 <= t < 0.8); 0.7 is its first instant.
    const byTime = await renderStill({composition: blocks, options: options(join(scratch(), 't075.png')), still: {time: 0.75}, pool})
    const atStart = await renderStill({composition: blocks, options: options(join(scratch(), 't07.png')), still: {time: 0.7}, pool})
    expect([byTime.frame, atStart.frame]).toEqual([7, 7])
    const reference = await rgba(join(frames, 'frame_000007.png'))
    expect((await rgba(byFrame.output)).equals(reference)).toBe(true)
    expect((await rgba(byTime.output)).equals(reference)).toBe(true)
    const later = await renderStill({composition: blocks, options: options(join(scratch(), 'f15.png')), still: {frame: 15}, pool})
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
      pool,
    })
    expect(jpeg.format).toBe('jpeg')
    expect(near(await pixelAt(jpeg.output, 0, 40, 40), {g: 255, r: 0, b: 0, a: 255})).toBe(true)
    expect((await pixelAt(jpeg.output, 0, 280, 40)).a).toBe(255)
    const best = await renderStill({composition: blocks, options: resolveRenderOptions({output: join(scratch(), 'q100.jpg')}), still: {time: 0.5, quality: 100}, pool})
    expect(best.bytes).toBeGreaterThan(jpeg.bytes)

    const webp = await renderStill({composition: blocks, options: resolveRenderOptions({output: join(scratch(), 'a.webp')}), still: {time: 1.2}, pool})
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

  // The CLI's own checks (flag parsing, --quality, exclusive flags) through the CLI, side by side;
  // the library's (a frame past the end, the output's extension) in-process with the same messages.
  it('CLI: hostile input exits non-zero naming the flag and the fix, and writes nothing', async () => {
    const output = join(scratch(), 'never.png')
    const gif = join(scratch(), 'never.gif')
    const cases: [string[], RegExp][] = [
      [['--time', '-1'], /--time: "-1" is not a time/],
      [['--time', 'soon'], /--time: "soon" is not a time/],
      [['--quality', '101'], /--quality: 101 is invalid/],
      [['--frame', '1', '--time', '1'], /--time=1 cannot also be provided when using --frame|cannot also be provided/],
    ]
    const results = await Promise.all(cases.map(([flags]) => runCli(['still', blocks, '-o', output, ...flags])))
    for (const [index, [flags, message]] of cases.entries()) {
      expect(results[index].code, flags.join(' ')).not.toBe(0)
      expect(results[index].stderr, flags.join(' ')).toMatch(message)
    }
    await expect(renderStill({composition: blocks, options: resolveRenderOptions({output}), still: {frame: 999}, pool})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: expect.stringMatching(/--frame 999 is past the end: the composition has frames 0-59/),
    })
    await expect(renderStill({composition: blocks, options: resolveRenderOptions({output: gif}), pool})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: expect.stringMatching(/--output: ".*never\.gif" must end in \.png, \.jpg, \.jpeg or \.webp/),
    })
    expect(existsSync(output) || existsSync(gif)).toBe(false)
  }, 240_000)
})
