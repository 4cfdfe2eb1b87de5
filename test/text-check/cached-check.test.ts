import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent} from '../../src/lib/batch/index.js'
import {batchTextCheck} from '../../src/lib/batch/row-text-check.js'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {RenderCache} from '../../src/lib/render-cache/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {OnOverflow} from '../../src/lib/render/text-findings.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {renderStill} from '../../src/lib/still/render-still.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'
import '../../src/lib/builtin-plugins.js'

const OVERFLOW = join(import.meta.dirname, 'fixtures/overflow.html')
const LONG = 'Maximiliana Wolfeschlegelsteinhausen'
// Rows 2 and 3 repeat rows 1 and 0: with one row at a time, each is a cache hit of the row before.
const ROWS = `name,customer_id\nAda,c-1\n${LONG},c-2\n${LONG},c-3\nAda,c-4\n`
const STILL = {frame: 5}

const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex')

describe('a cached row of a still batch is text-checked like a rendered one', PROCESSES, () => {
  const scratch = useScratchDir('engine-cached-check-')
  const pool = new BrowserPool()
  let cache: RenderCache
  beforeAll(() => {
    cache = new RenderCache({directory: join(scratch(), 'cache'), budgetBytes: 1024 ** 3})
  })
  afterAll(() => pool.close())

  async function batch(name: string, onOverflow: OnOverflow | undefined, using = cache) {
    const dir = join(scratch(), name)
    const options = resolveRenderOptions({fps: 10, scale: 0.5, output: join(dir, 'out/{index}.png'), format: 'png-sequence', onOverflow})
    const events: BatchEvent[] = []
    await writeFile(join(scratch(), 'rows.csv'), ROWS)
    const summary = await renderBatch({
      composition: OVERFLOW,
      batchFile: join(scratch(), 'rows.csv'),
      options,
      render: async (request) => ({...(await renderStill({...request, still: STILL, pool, cache: using})), durationSeconds: 0}),
      textCheck: batchTextCheck(options, pool, STILL),
      cwd: dir,
      onEvent: (event) => events.push(event),
    })
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    const sheet = (await readFile(join(dir, 'out/results.csv'), 'utf8')).trim().split('\n')
    return {dir, summary, manifest, events, status: (index: number) => sheet[index + 1].split(',')[2]}
  }

  const finding = expect.objectContaining({code: 'text-overflow', detail: expect.objectContaining({element: '#name', variable: 'name', frame: 5})})

  it('warn: the repeated long name is cached and needs review, with the findings its first render had', async () => {
    const {dir, summary, manifest, events, status} = await batch('warn', undefined)
    expect(summary.counts).toMatchObject({completed: 2, cached: 2, failed: 0})
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'cached', 'cached'])
    expect(manifest.rows[1].warnings).toEqual([finding])
    expect(manifest.rows[2].warnings).toEqual([{...manifest.rows[1].warnings![0], message: manifest.rows[1].warnings![0].message.replace('row 1:', 'row 2:'), detail: {...manifest.rows[1].warnings![0].detail, row: 2}}])
    expect(manifest.rows[3].warnings).toBeUndefined()
    expect([0, 1, 2, 3].map(status)).toEqual(['succeeded', 'needs-review', 'needs-review', 'cached'])
    expect(events).toContainEqual(expect.objectContaining({type: 'warning', code: 'text-overflow', row: 2}))
    // The sha256 the cache checked while copying is the output's.
    expect(manifest.rows[2].sha256).toBe(await sha256(join(dir, 'out/2.png')))
    expect(manifest.rows[1].sha256).toBe(await sha256(join(dir, 'out/1.png')))
  })

  it('skip: a long name found in the cache is skipped before anything is copied; the short names are hits', async () => {
    const {dir, summary, manifest} = await batch('skip', 'skip')
    expect(summary.counts).toMatchObject({cached: 2, skipped: 2, completed: 0})
    expect(manifest.rows.map((row) => row.status)).toEqual(['cached', 'skipped', 'skipped', 'cached'])
    expect(manifest.rows[1]).toMatchObject({skippedReason: 'text does not fit (--on-overflow skip)', warnings: [finding]})
    expect(existsSync(join(dir, 'out/1.png'))).toBe(false)
    expect(existsSync(join(dir, 'out/2.png'))).toBe(false)
  })

  it('an entry stored by a render that did not check is rendered again, checked, and then serves checked hits', async () => {
    const unchecked = new RenderCache({directory: join(scratch(), 'unchecked-cache'), budgetBytes: 1024 ** 3})
    const options = resolveRenderOptions({fps: 10, scale: 0.5, output: join(scratch(), 'single.png')})
    await renderStill({composition: OVERFLOW, options, variables: {name: LONG}, still: STILL, pool, cache: unchecked})
    const {manifest, status} = await batch('unchecked', undefined, unchecked)
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'cached', 'cached'])
    expect(manifest.rows[1].warnings).toEqual([finding])
    expect(manifest.rows[2].warnings).toEqual([expect.objectContaining({code: 'text-overflow', detail: expect.objectContaining({row: 2})})])
    expect([1, 2].map(status)).toEqual(['needs-review', 'needs-review'])
  })
})

describe('a cached row of a video batch is text-checked like a rendered one', PROCESSES, () => {
  const scratch = useScratchDir('engine-cached-video-check-')
  const pool = new BrowserPool()
  afterAll(() => pool.close())
  const settings = (output: string, onOverflow?: OnOverflow) => resolveRenderOptions({fps: 10, quality: 'draft', workers: 1, scale: 0.5, output, onOverflow})

  async function batch(name: string, onOverflow: OnOverflow | undefined, cache: RenderCache) {
    const dir = join(scratch(), name)
    const options = settings(join(dir, 'out/{index}.mp4'), onOverflow)
    await writeFile(join(scratch(), 'rows.csv'), ROWS)
    const textCheck = batchTextCheck(options, pool)
    expect(textCheck.inRender).toBe(true)
    const summary = await renderBatch({
      composition: OVERFLOW,
      batchFile: join(scratch(), 'rows.csv'),
      options,
      render: (request) => renderComposition({...request, pool, cache}),
      textCheck,
      cwd: dir,
    })
    return {dir, summary, manifest: (await readManifest(join(dir, 'out/manifest.json')))!}
  }

  const finding = (row: number) => expect.objectContaining({code: 'text-overflow', detail: expect.objectContaining({row, element: '#name', variable: 'name', timeSeconds: 0})})

  it('an unchecked entry is rendered again and checked; hits carry its findings, and skip skips them', async () => {
    const cache = new RenderCache({directory: join(scratch(), 'cache'), budgetBytes: 1024 ** 3})
    // A single render (no check) stores the long name's entry without findings.
    await renderComposition({composition: OVERFLOW, options: settings(join(scratch(), 'single.mp4')), variables: {name: LONG}, pool, cache})
    const warned = await batch('warn', undefined, cache)
    expect(warned.manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'cached', 'cached'])
    expect(warned.manifest.rows.map((row) => row.warnings)).toEqual([undefined, [finding(1)], [finding(2)], undefined])
    expect(warned.manifest.rows[2].sha256).toBe(await sha256(join(warned.dir, 'out/2.mp4')))
    expect(warned.manifest.rows[2].sha256).toBe(warned.manifest.rows[1].sha256)

    const skipped = await batch('skip', 'skip', cache)
    expect(skipped.manifest.rows.map((row) => row.status)).toEqual(['cached', 'skipped', 'skipped', 'cached'])
    expect(skipped.manifest.rows[1]).toMatchObject({skippedReason: 'text does not fit (--on-overflow skip)', warnings: [finding(1)]})
    expect(existsSync(join(skipped.dir, 'out/1.mp4'))).toBe(false)
  })
})
