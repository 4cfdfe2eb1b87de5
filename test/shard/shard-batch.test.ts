import {mkdir, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent, type BatchManifest, type BatchRequest} from '../../src/lib/batch/index.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {mergeShards} from '../../src/lib/shard/merge-shards.js'
import type {ShardSpec} from '../../src/lib/shard/shard-spec.js'
import {until} from '../support/until.js'
import {CARD, fakeRender, options, useScratchDir, writeRows} from '../batch/support.js'

const ROWS = Array.from({length: 10}, (_, index) => ({title: `Row ${index}`}))
const shard = (index: number, count: number): ShardSpec => ({index, count, scheduler: 'flag', from: '--shard'})

/** A manifest without what differs from run to run (times), for comparing runs. */
function timeless(manifest: BatchManifest) {
  const {createdAt: _c, updatedAt: _u, finishedAt: _f, ...head} = manifest
  return {...head, rows: manifest.rows.map(({startedAt: _s, finishedAt: _e, renderMs: _r, ...row}) => row)}
}

describe('a batch in shards', () => {
  const scratch = useScratchDir()

  async function run(dir: string, overrides: Partial<BatchRequest> & {fake?: ReturnType<typeof fakeRender>; rows?: unknown} = {}) {
    const fake = overrides.fake ?? fakeRender()
    const events: BatchEvent[] = []
    const summary = await renderBatch({
      composition: CARD,
      batchFile: await writeRows(dir, overrides.rows ?? ROWS),
      options: options({output: join(dir, 'out/{index}.mp4')}),
      render: fake.render,
      onEvent: (event) => events.push(event),
      cwd: dir,
      ...overrides,
    })
    return {summary, fake, events}
  }

  it('each shard renders its rows (index mod N) into a manifest of its own, and the merge equals the unsharded manifest', async () => {
    const dir = scratch()
    const rendered: number[][] = []
    for (let index = 0; index < 4; index++) {
      const {fake, events, summary} = await run(dir, {shard: shard(index, 4)})
      rendered.push(fake.calls.map((call) => Number(/(\d+)\.mp4$/.exec(call.options.output!)![1])))
      expect(summary.manifest).toBe(join(dir, `out/manifest.shard-${index}-of-4.json`))
      expect(events[0]).toMatchObject({type: 'batch-start', rows: index < 2 ? 3 : 2, shard: {index, count: 4, scheduler: 'flag', from: '--shard'}})
    }
    expect(rendered).toEqual([[0, 4, 8], [1, 5, 9], [2, 6], [3, 7]])
    const shard1 = (await readManifest(join(dir, 'out/manifest.shard-1-of-4.json')))!
    expect(shard1.shard).toEqual({index: 1, count: 4})
    expect(shard1.rows.map((row) => row.index)).toEqual([1, 5, 9])
    expect(shard1.counts).toEqual({pending: 0, running: 0, completed: 3, failed: 0, skipped: 0, cached: 0})

    const merged = await mergeShards(join(dir, 'out'))
    expect(merged).toEqual({manifest: join(dir, 'out/manifest.json'), shards: 4, counts: {pending: 0, running: 0, completed: 10, failed: 0, skipped: 0, cached: 0}})

    const whole = join(dir, 'whole')
    await mkdir(whole)
    await run(whole)
    const unsharded = (await readManifest(join(whole, 'out/manifest.json')))!
    const joined = (await readManifest(merged.manifest))!
    expect(joined.shard).toBeUndefined()
    expect(timeless({...joined, batchFile: '', outputTemplate: ''})).toEqual(timeless({...unsharded, batchFile: '', outputTemplate: ''}))
    for (let row = 0; row < 10; row++) expect(await readFile(join(dir, `out/${row}.mp4`), 'utf8')).toBe(await readFile(join(whole, `out/${row}.mp4`), 'utf8'))
  })

  it('preflight checks every row of the batch, not just the shard: two rows of other shards writing one file are refused', async () => {
    const dir = scratch()
    const rows = [{title: 'a'}, {title: 'b'}, {title: 'a'}, {title: 'c'}]
    const fake = fakeRender()
    const error = await run(dir, {rows, fake, shard: shard(1, 2), options: options({output: join(dir, 'out/{title}.mp4')})}).catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'BATCH_PREFLIGHT', message: expect.stringContaining('row 2, --output: "out/a.mp4" is also the output of row 0')})
    expect(fake.calls).toEqual([])
  })

  it("clears what killed renders left beside its own rows' outputs only: another shard's partial file may be a render running on another worker", async () => {
    const dir = scratch()
    await mkdir(join(dir, 'out'))
    const own = join(dir, 'out/.2.mp4.0123abcd.partial')
    const other = join(dir, 'out/.3.mp4.0123abcd.partial')
    await writeFile(own, 'left by a killed render of row 2')
    await writeFile(other, 'being written by shard 1 right now')
    await run(dir, {shard: shard(0, 2)})
    const names = await readdir(join(dir, 'out'))
    expect(names).not.toContain('.2.mp4.0123abcd.partial')
    expect(names).toContain('.3.mp4.0123abcd.partial')
  })

  it('resumes per shard: only the rows that shard did not complete render again', async () => {
    const dir = scratch()
    let failed = false
    const flaky = fakeRender({
      onStart: (request) => {
        if (!failed && request.options.output!.endsWith('/5.mp4')) {
          failed = true
          throw new EngineError('BROWSER_FAILED', 'the browser crashed')
        }
      },
    })
    for (let index = 0; index < 2; index++) await run(dir, {shard: shard(index, 2), fake: flaky})
    const second = await run(dir, {shard: shard(1, 2), resume: true})
    expect(second.fake.calls.map((call) => call.options.output)).toEqual([join(dir, 'out/5.mp4')])
    expect(second.events[0]).toMatchObject({type: 'batch-start', rows: 5, toRender: 1})
    const merged = (await readManifest((await mergeShards(join(dir, 'out'))).manifest))!
    expect(merged.rows.map((row) => [row.index, row.status])).toEqual(ROWS.map((_, index) => [index, 'completed']))
  })

  it('merge names a missing shard and a shard still running, and writes nothing', async () => {
    const dir = scratch()
    await run(dir, {shard: shard(0, 3)})
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const running = run(dir, {shard: shard(1, 3), fake: fakeRender({onStart: () => held})})
    const journal = join(dir, 'out/manifest.shard-1-of-3.journal.jsonl')
    expect(await until(async () => (await readFile(journal, 'utf8').catch(() => '')).includes('"running"'))).toBe(true)

    const error = await mergeShards(join(dir, 'out')).catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'BATCH_MERGE'})
    const message = (error as Error).message
    expect(message).toContain('2 of 3 shards are not ready')
    expect(message).toMatch(/shard 1 of 3: unfinished: manifest\.shard-1-of-3\.json has not ended \(2 pending, 1 running\)/)
    expect(message).toContain('shard 2 of 3: missing: there is no manifest.shard-2-of-3.json; run it with --shard 2/3')
    expect(await readdir(join(dir, 'out'))).not.toContain('manifest.json')
    release()
    await running
  })

  it('merge refuses shards of two shard counts and shards of another batch', async () => {
    const dir = scratch()
    await run(dir, {shard: shard(0, 2)})
    await run(dir, {shard: shard(0, 1)})
    await expect(mergeShards(join(dir, 'out'))).rejects.toThrow(/shard manifests of 1 and 2 shards .*remove the ones of the earlier run/)
    await rm(join(dir, 'out/manifest.shard-0-of-1.json'))
    await run(dir, {shard: shard(1, 2), rows: ROWS.map((row) => ({...row, title: row.title + '!'}))})
    await expect(mergeShards(join(dir, 'out'))).rejects.toThrow(/shard 1 of 2: was rendered with another rowsSha256 than shard 0/)
    await expect(mergeShards(join(dir, 'nothing-here'))).rejects.toThrow(/cannot read .*nothing-here/)
  })
})
