import {createHash} from 'node:crypto'
import {cp, readFile, readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent} from '../../src/lib/batch/index.js'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {listEntries, RenderCache} from '../../src/lib/render-cache/index.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderStill} from '../../src/lib/still/render-still.js'
import {probeVideoStream} from '../support/media.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const GB = 1024 ** 3

const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex')
const options = (input: RenderOptionsInput = {}) => resolveRenderOptions({fps: 10, quality: 'draft', scale: 0.5, workers: 1, ...input})

describe('the render cache', PROCESSES, () => {
  const scratch = useScratchDir('engine-render-cache-test-')
  let project: string
  let composition: string
  let pool: BrowserPool
  let cache: RenderCache

  beforeAll(async () => {
    project = join(scratch(), 'project')
    await cp(FIXTURES, project, {recursive: true})
    composition = join(project, 'badge.html')
    pool = new BrowserPool()
    cache = new RenderCache({directory: join(scratch(), 'cache'), budgetBytes: GB})
  })
  afterAll(() => pool?.close())

  async function batch(rows: unknown[], out: string, input: RenderOptionsInput = {}) {
    const events: BatchEvent[] = []
    const batchFile = join(scratch(), `${out}.json`)
    await writeFile(batchFile, JSON.stringify(rows))
    const summary = await renderBatch({
      composition,
      batchFile,
      options: options({output: join(scratch(), out, '{index}.mp4'), batchConcurrency: 2, ...input}),
      render: (request) => renderComposition({...request, pool, cache}),
      onEvent: (event) => events.push(event),
    })
    const manifest = (await readManifest(summary.manifest))!
    const captured = new Set(events.filter((event) => event.type === 'stage' && event.stage === 'capture').map((event) => (event as {row: number}).row))
    return {summary, manifest, events, captured, file: (index: number) => join(scratch(), out, `${index}.mp4`)}
  }

  async function render(output: string, variables: Record<string, unknown>, input: RenderOptionsInput = {}, using: RenderCache | false = cache) {
    const events: RenderEvent[] = []
    const result = await renderComposition({composition, options: options({output: join(scratch(), output), ...input}), variables, pool, cache: using, onEvent: (event) => events.push(event)})
    return {result, events, warnings: events.filter((event) => event.type === 'warning').map((event) => (event as {code: string}).code)}
  }

  let firstShas: string[] = []

  it('renders two rows with the same values once (concurrent rows: one renders, the other waits and copies) and marks the copy cached', async () => {
    const run = await batch([{title: 'Ada'}, {title: 'Ada'}, {title: 'Bo'}], 'first')
    expect(run.summary.counts).toMatchObject({completed: 2, cached: 1, failed: 0})
    const statuses = run.manifest.rows.map((row) => row.status)
    expect(statuses.slice(0, 2).sort()).toEqual(['cached', 'completed'])
    expect(statuses[2]).toBe('completed')
    // Only the row that rendered captured frames; the cached one never opened a page.
    expect(run.captured.size).toBe(2)
    expect(run.captured.has(run.manifest.rows.findIndex((row) => row.status === 'cached'))).toBe(false)
    firstShas = await Promise.all([0, 1, 2].map((index) => sha256(run.file(index))))
    expect(firstShas[0]).toBe(firstShas[1])
    expect(firstShas[2]).not.toBe(firstShas[0])
    expect(await probeVideoStream(run.file(1))).toMatchObject({width: 160, height: 90, nb_read_frames: '5'})
    const cachedRow = run.manifest.rows.find((row) => row.status === 'cached')!
    expect(cachedRow).toMatchObject({bytes: (await readFile(run.file(cachedRow.index))).length, totalFrames: 5, durationSeconds: 0.5})
    expect(run.events.at(-1)).toMatchObject({type: 'batch-done', counts: {cached: 1, completed: 2}})
    expect(run.events).toContainEqual(expect.objectContaining({type: 'row', status: 'cached'}))
    expect(await listEntries(cache.directory)).toHaveLength(2)
  })

  it('serves a second batch of the same rows from the cache, byte for byte', async () => {
    const run = await batch([{title: 'Ada'}, {title: 'Ada'}, {title: 'Bo'}], 'second')
    expect(run.manifest.rows.map((row) => row.status)).toEqual(['cached', 'cached', 'cached'])
    expect(run.captured.size).toBe(0)
    expect(await Promise.all([0, 1, 2].map((index) => sha256(run.file(index))))).toEqual(firstShas)
  })

  it('--no-cache renders every row and stores nothing', async () => {
    const entries = (await listEntries(cache.directory)).map((entry) => entry.key)
    const run = await batch([{title: 'Ada'}, {title: 'Cy'}], 'uncached', {cache: false})
    expect(run.manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed'])
    expect(run.captured.size).toBe(2)
    expect((await listEntries(cache.directory)).map((entry) => entry.key).sort()).toEqual(entries.sort())
  })

  it('misses when a setting or a project file the page loaded changes, and hits again once that render is stored', async () => {
    const changedSetting = await render('standard.mp4', {title: 'Ada'}, {quality: 'standard'})
    expect(changedSetting.result.cached).toBeUndefined()
    const poster = await render('poster.mp4', {title: 'Ada'}, {poster: 0.2})
    expect(poster.result.cached).toBeUndefined()
    const logo = join(project, 'logo.svg')
    await writeFile(logo, (await readFile(logo, 'utf8')).replace('#ff0000', '#00ff00'))
    const edited = await render('edited.mp4', {title: 'Ada'})
    expect(edited.result.cached).toBeUndefined()
    expect(await sha256(edited.result.output)).not.toBe(firstShas[0])
    const again = await render('edited-again.mp4', {title: 'Ada'})
    expect(again.result.cached).toBe(true)
    expect(await sha256(again.result.output)).toBe(await sha256(edited.result.output))
  })

  it('a single render reuses the output and its poster, and says so in its done event', async () => {
    const first = await render('single-a.mp4', {title: 'Dee'}, {poster: 0.2})
    const second = await render('single-b.mp4', {title: 'Dee'}, {poster: 0.2})
    expect(second.result.cached).toBe(true)
    expect(second.events.filter((event) => event.type === 'stage').map((event) => (event as {stage: string}).stage)).not.toContain('capture')
    expect(second.events.at(-1)).toMatchObject({type: 'done', cached: true, output: join(scratch(), 'single-b.mp4'), totalFrames: 5})
    expect(await sha256(second.result.output)).toBe(await sha256(first.result.output))
    expect(await sha256(second.result.poster!)).toBe(await sha256(first.result.poster!))
  })

  it('drops a corrupted entry, renders again and stores a whole one', async () => {
    const first = await render('corrupt-a.mp4', {title: 'Eve'})
    const newest = (await listEntries(cache.directory)).sort((a, b) => a.entry.createdAt.localeCompare(b.entry.createdAt)).at(-1)!
    const stored = join(cache.directory, newest.key, newest.entry.files[0].name)
    const bytes = await readFile(stored)
    bytes[bytes.length >> 1] ^= 0xff
    await writeFile(stored, bytes)

    const second = await render('corrupt-b.mp4', {title: 'Eve'})
    expect(second.result.cached).toBeUndefined()
    expect(second.warnings).toContain('render-cache-corrupt')
    expect(await sha256(second.result.output)).toBe(await sha256(first.result.output))
    const third = await render('corrupt-c.mp4', {title: 'Eve'})
    expect(third.result.cached).toBe(true)
  })

  it('a still hits the cache too, and past a tiny budget the least recently used entry goes', async () => {
    const small = new RenderCache({directory: join(scratch(), 'small-cache'), budgetBytes: 1})
    const still = (output: string, title: string) =>
      renderStill({composition, options: options({output: join(scratch(), output)}), still: {frame: 2}, variables: {title}, pool, cache: small})
    const first = await still('a.png', 'Fay')
    expect(first.cached).toBeUndefined()
    const sized = new RenderCache({directory: small.directory, budgetBytes: Math.floor(first.bytes * 1.5)})
    const stillIn = (output: string, title: string) =>
      renderStill({composition, options: options({output: join(scratch(), output)}), still: {frame: 2}, variables: {title}, pool, cache: sized})
    // The one-byte budget evicted it right after the store.
    expect(await listEntries(small.directory)).toEqual([])
    expect((await stillIn('b.png', 'Fay')).cached).toBeUndefined()
    expect((await stillIn('c.png', 'Fay')).cached).toBe(true)
    expect(await sha256(join(scratch(), 'c.png'))).toBe(await sha256(join(scratch(), 'a.png')))
    await stillIn('d.png', 'Gus')
    const kept = await listEntries(small.directory)
    expect(kept).toHaveLength(1)
    expect((await stillIn('e.png', 'Gus')).cached).toBe(true)
    expect((await stillIn('f.png', 'Fay')).cached).toBeUndefined()
    expect((await readdir(small.directory)).filter((name) => name.startsWith('.staging-'))).toEqual([])
  })
})
