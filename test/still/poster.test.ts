import {existsSync} from 'node:fs'
import {copyFile, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest, renderBatch} from '../../src/lib/batch/index.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {renderComposition, renderStill} from '../../src/lib/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {startServer} from '../../src/lib/server/start-server.js'
import {serverFetch} from '../../src/lib/server-client/server-api.js'
import {decodeFrame} from '../support/media.js'
import {FIXTURES, renderFixture, useScratchDir} from '../render/support.js'
import {openStream} from '../server/support/test-server.js'
import {PROCESSES} from '../support/timeouts.js'
import {useBrowserPool} from '../support/browser-pool.js'

const blocks = join(FIXTURES, 'blocks.html')
const rgba = (file: string, index = 0) => decodeFrame(file, index, 'format=rgba')

/** Mean absolute difference per channel of two same-sized RGBA frames. */
function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!)
  return sum / a.length
}

describe('--poster: a still from the same capture as the video', PROCESSES, () => {
  const pool = useBrowserPool()
  const scratch = useScratchDir()

  it('png-sequence + png poster: the poster is exactly the frame on screen at that time', async () => {
    const output = join(scratch(), 'seq')
    const result = await renderFixture('blocks.html', {format: 'png-sequence', fps: 10, output, poster: 0.75, posterFormat: 'png'}, undefined, pool)
    expect(result.poster).toBe(`${output}.poster.png`)
    expect(result.events.find((event) => event.type === 'done')).toMatchObject({poster: `${output}.poster.png`})
    expect((await rgba(result.poster!)).equals(await rgba(join(output, 'frame_000007.png')))).toBe(true)
  })

  it('mp4 + default jpeg poster: the very JPEG the encoder got (equal to a still of that frame), and matching the video frame', async () => {
    const output = join(scratch(), 'video.mp4')
    const result = await renderFixture('blocks.html', {fps: 10, output, poster: 1.25}, undefined, pool)
    expect(result.poster).toBe(join(scratch(), 'video.poster.jpg'))
    // Same frame, same capture settings (draft: JPEG quality 80): byte for byte the same image.
    const still = await renderStill({composition: blocks, options: resolveRenderOptions({fps: 10, output: join(scratch(), 'f12.jpg')}), still: {frame: 12, quality: 80}, pool})
    expect((await readFile(result.poster!)).equals(await readFile(still.output))).toBe(true)
    const [poster, frame12, frame2] = await Promise.all([rgba(result.poster!), rgba(output, 12), rgba(output, 2)])
    expect(meanDifference(poster, frame12)).toBeLessThan(3)
    expect(meanDifference(poster, frame2)).toBeGreaterThan(20)
  })

  it('a poster time past the end fails before anything is written', async () => {
    const output = join(scratch(), 'late.mp4')
    const failure = await renderFixture('blocks.html', {fps: 10, output, poster: 2}, undefined, pool).catch((error: unknown) => error)
    expect(isEngineError(failure, 'INVALID_FLAG')).toBe(true)
    expect((failure as Error).message).toMatch(/--poster 2: the render ends at 2\.000 s; give a time from 0 to below 2\.000/)
    expect(existsSync(output) || existsSync(join(scratch(), 'late.poster.jpg'))).toBe(false)
    expect(() => resolveRenderOptions({poster: -1})).toThrow(/--poster: -1 is invalid/)
    expect(() => resolveRenderOptions({posterFormat: 'gif' as never})).toThrow(/--poster-format.*"gif"/)
  })

  it('batch rows record their poster in the manifest', async () => {
    const dir = scratch()
    const rows = join(dir, 'poster-rows.json')
    await writeFile(rows, JSON.stringify([{color: '#ff0000'}]))
    const summary = await renderBatch({
      composition: blocks,
      batchFile: rows,
      options: resolveRenderOptions({fps: 5, quality: 'draft', output: join(dir, 'batch/{index}.mp4'), poster: 0.5, posterFormat: 'webp'}),
      render: (request) => renderComposition({...request, pool}),
    })
    const manifest = (await readManifest(summary.manifest))!
    expect(manifest.rows[0]).toMatchObject({status: 'completed', output: '0.mp4', poster: '0.poster.webp'})
    expect(existsSync(join(dir, 'batch/0.poster.webp'))).toBe(true)
  })

  it('engine serve: "poster" in the body; the complete event names it and GET /render/:id/poster serves it', async () => {
    const root = scratch()
    await copyFile(blocks, join(root, 'blocks.html'))
    const server = await startServer(await resolveServerSettings({port: 0, root, maxConcurrentRenders: 1}, {}))
    try {
      const connection = {url: server.url}
      const stream = openStream(connection, {composition: 'blocks.html', fps: 5, quality: 'draft', workers: 1, poster: 0.5, posterFormat: 'png'})
      const final = await stream.done
      expect(final).toMatchObject({type: 'complete', posterUrl: `/render/${final.requestId}/poster`})
      const response = await serverFetch(connection, `/render/${final.requestId}/poster`)
      expect(response.headers.get('content-type')).toBe('image/png')
      const saved = join(root, 'served.png')
      await writeFile(saved, Buffer.from(await response.arrayBuffer()))
      expect((await rgba(saved)).length).toBe(320 * 180 * 4)
      const none = openStream(connection, {composition: 'blocks.html', fps: 5, quality: 'draft', workers: 1})
      const plain = await none.done
      expect(plain).toMatchObject({type: 'complete', posterUrl: null})
      await expect(serverFetch(connection, `/render/${plain.requestId}/poster`)).rejects.toThrow(/has no poster/)
    } finally {
      await server.close()
    }
  }, 120_000)
})
