import {existsSync} from 'node:fs'
import {readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent} from '../../src/lib/batch/index.js'
import {batchTextCheck} from '../../src/lib/batch/row-text-check.js'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {renderStill} from '../../src/lib/still/render-still.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {OnOverflow} from '../../src/lib/render/text-findings.js'
import {probeVideoStream} from '../support/media.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'
import '../../src/lib/builtin-plugins.js'

const OVERFLOW = join(import.meta.dirname, 'fixtures/overflow.html')
const ROWS = 'name,customer_id\nAda,c-1\nMaximiliana Wolfeschlegelsteinhausen,c-2\n'

describe('a batch with the check pass', PROCESSES, () => {
  const scratch = useScratchDir('engine-text-check-', 'test')
  const pool = new BrowserPool()
  afterAll(() => pool.close())

  async function batch(onOverflow: OnOverflow | undefined, checkOnly = false, composition = OVERFLOW) {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), ROWS)
    const options = resolveRenderOptions({fps: 10, quality: 'draft', workers: 1, scale: 0.5, output: join(dir, 'out/{index}.mp4'), onOverflow, checkOnly})
    const events: BatchEvent[] = []
    const summary = await renderBatch({
      composition,
      batchFile: join(dir, 'rows.csv'),
      options,
      render: (request) => renderComposition({...request, pool}),
      textCheck: batchTextCheck(options, pool),
      cwd: dir,
      onEvent: (event) => events.push(event),
    })
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    return {dir, summary, manifest, events}
  }

  const overflowWarning = expect.objectContaining({
    code: 'text-overflow',
    message: expect.stringMatching(/^row 1: the text of #name \(variable "name"\) is cut off by #stage > div\.card: [\d.]+ px past its edge at 0 s/),
    detail: expect.objectContaining({row: 1, kind: 'clipped', element: '#name', variable: 'name', timeSeconds: 0, overflowPx: expect.any(Number)}),
  })

  it('warns by default: every row renders, the finding is in its manifest row and its events', async () => {
    const {dir, summary, manifest, events} = await batch(undefined)
    expect(summary.counts).toMatchObject({completed: 2, failed: 0, skipped: 0})
    expect(manifest.rows[0].warnings).toBeUndefined()
    expect(manifest.rows[1].warnings).toEqual([overflowWarning])
    expect((manifest.rows[1].warnings![0].detail as {overflowPx: number}).overflowPx).toBeGreaterThan(140)
    expect(events).toContainEqual(expect.objectContaining({type: 'warning', code: 'text-overflow', row: 1}))
    expect(await probeVideoStream(join(dir, 'out/1.mp4'))).toMatchObject({nb_read_frames: '10', width: 160, height: 90})
  })

  it('--on-overflow fail fails the row with TEXT_OVERFLOW before it renders; the other row renders', async () => {
    const {dir, summary, manifest} = await batch('fail')
    expect(summary.counts).toMatchObject({completed: 1, failed: 1})
    expect(manifest.rows[1]).toMatchObject({status: 'failed', error: {code: 'TEXT_OVERFLOW', message: expect.stringContaining('#name (variable "name")')}, warnings: [overflowWarning]})
    expect(existsSync(join(dir, 'out/0.mp4'))).toBe(true)
    expect(existsSync(join(dir, 'out/1.mp4'))).toBe(false)
  })

  it('--on-overflow skip skips the row, saying why', async () => {
    const {dir, summary, manifest} = await batch('skip')
    expect(summary.counts).toMatchObject({completed: 1, skipped: 1})
    expect(manifest.rows[1]).toMatchObject({status: 'skipped', skippedReason: 'text does not fit (--on-overflow skip)', warnings: [overflowWarning]})
    expect(existsSync(join(dir, 'out/1.mp4'))).toBe(false)
  })

  it('--check-only renders nothing and records each row\'s findings', async () => {
    const {dir, summary, manifest} = await batch(undefined, true)
    expect(summary.counts).toMatchObject({completed: 0, failed: 0, skipped: 2})
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['manifest.json', 'results.csv'])
    expect(manifest.rows.map(({skippedReason, warnings}) => ({skippedReason, warnings}))).toEqual([
      {skippedReason: 'checked only (--check-only): not rendered', warnings: undefined},
      {skippedReason: 'checked only (--check-only): not rendered', warnings: [overflowWarning]},
    ])
  })

  it('a row whose check cannot run still renders, with a text-check-failed warning', async () => {
    const dir = scratch()
    // The page's script breaks what the check measures with (never what it draws).
    const broken = join(dir, 'broken.html')
    await writeFile(broken, (await readFile(OVERFLOW, 'utf8')).replace('(function () {', 'Range.prototype.getClientRects = function () { return [{left: -1e12, right: 1e12, top: 0, bottom: 10, width: 2e12, height: 10}] };\n    (function () {'))
    const {summary, manifest} = await batch(undefined, false, broken)
    expect(summary.counts).toMatchObject({completed: 2})
    expect(manifest.rows.map((row) => row.warnings?.map((warning) => warning.code))).toEqual([['text-check-failed'], ['text-check-failed']])
    expect(manifest.rows[0].warnings![0].message).toMatch(/^row 0: the text check could not run \(PAGE_ERROR: /)
  })

  it('a still batch checks on the page it captures from: skip ends the row before its capture', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), ROWS)
    const options = resolveRenderOptions({fps: 10, scale: 0.5, output: join(dir, 'out/{index}.png'), format: 'png-sequence', onOverflow: 'skip'})
    const still = {frame: 5}
    const textCheck = batchTextCheck(options, pool, still)
    expect(textCheck.inRender).toBe(true)
    const summary = await renderBatch({
      composition: OVERFLOW,
      batchFile: join(dir, 'rows.csv'),
      options,
      render: async (request) => ({...(await renderStill({...request, still, pool})), durationSeconds: 0}),
      textCheck,
      cwd: dir,
    })
    expect(summary.counts).toMatchObject({completed: 1, skipped: 1})
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows[1]).toMatchObject({status: 'skipped', skippedReason: 'text does not fit (--on-overflow skip)', warnings: [expect.objectContaining({detail: expect.objectContaining({frame: 5, element: '#name'})})]})
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['0.png', 'manifest.json', 'results.csv'])
  })
})
