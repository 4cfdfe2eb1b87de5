import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-small-scale-'))
  await writeFile(
    join(dir, 'index.html'),
    `<!doctype html><html><body style="margin:0"><div data-composition-id="c" data-width="1280" data-height="720" data-duration="1" style="position:relative;width:1280px;height:720px">
      <div style="position:absolute;left:0;top:0;width:640px;height:720px;background:#ff0000"></div>
      <div style="position:absolute;left:640px;top:0;width:640px;height:720px;background:#0000ff"></div></div></body></html>`,
  )
})

afterAll(async () => {
  await rm(dir, {recursive: true, force: true})
})

// Chromium draws begin-frame screenshots at no less than half scale: 0.25 came out at 640x360.
describe('--scale below 0.5 draws at the size the CLI announces', PROCESSES, () => {
  it('a still and a video at 0.25 of 1280x720 are 320x180, with the picture where it belongs', async () => {
    const still = await runCli(['still', join(dir, 'index.html'), '--scale', '0.25', '-o', join(dir, 'thumb.png')])
    expect(still.code, still.stderr).toBe(0)
    expect(still.stdout + still.stderr).toMatch(/320x180/)
    const video = await runCli(['render', join(dir, 'index.html'), '--scale', '0.25', '--frames', '0-2', '-o', join(dir, 'small.mp4')])
    expect(video.code, video.stderr).toBe(0)
    for (const file of ['thumb.png', 'small.mp4']) {
      const stream = await probeVideoStream(join(dir, file))
      expect([stream.width, stream.height], file).toEqual([320, 180])
      expect(near(await pixelAt(join(dir, file), 0, 40, 90), {r: 255, g: 0, b: 0}), file).toBe(true)
      expect(near(await pixelAt(join(dir, file), 0, 280, 90), {r: 0, g: 0, b: 255}), file).toBe(true)
    }
  })
})
