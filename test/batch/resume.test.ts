import {appendFile, copyFile, mkdir, readFile, rm, utimes, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent, type BatchRequest} from '../../src/lib/batch/index.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {CARD, fakeRender, options, useScratchDir, writeRows} from './support.js'

const ROWS = [{title: 'Ada'}, {title: 'Bo'}, {title: 'Cy'}]

describe('renderBatch --resume', () => {
  const scratch = useScratchDir()

  async function run(overrides: Partial<BatchRequest> & {rows?: unknown; fake?: ReturnType<typeof fakeRender>} = {}) {
    const dir = scratch()
    const fake = overrides.fake ?? fakeRender()
    const events: BatchEvent[] = []
    const summary = await renderBatch({
      composition: CARD,
      batchFile: await writeRows(dir, overrides.rows ?? ROWS),
      options: options({output: join(dir, 'out/{index}-{title}.mp4')}),
      render: fake.render,
      onEvent: (event) => events.push(event),
      cwd: dir,
      ...overrides,
    })
    return {summary, fake, events, manifest: (await readManifest(join(dir, 'out/manifest.json')))!}
  }

  /** Fails row `index` once, as a flaky render would. */
  function failingOnce(index: number) {
    let failed = false
    return fakeRender({
      onStart: (request) => {
        if (!failed && request.options.output!.includes(`/${index}-`)) {
          failed = true
          throw new EngineError('BROWSER_FAILED', 'the browser crashed')
        }
      },
    })
  }

  it('never lets the manifest point a completed row at another file: the row is checked where this run puts it', async () => {
    const first = await run()
    expect(first.summary.counts.completed).toBe(3)
    const manifestPath = join(scratch(), 'out/manifest.json')
    await writeFile(join(scratch(), 'elsewhere.mp4'), 'a file the batch never wrote')
    await writeFile(manifestPath, (await readFile(manifestPath, 'utf8')).replace('"output":"0-Ada.mp4"', '"output":"../elsewhere.mp4"'))
    await rm(join(scratch(), 'out/0-Ada.mp4'))

    const second = await run({resume: true})
    expect(second.fake.calls.map((call) => call.options.output)).toEqual([join(scratch(), 'out/0-Ada.mp4')])
    expect(second.events).toContainEqual(expect.objectContaining({type: 'warning', code: 'output-missing', message: expect.stringContaining('row 0 was completed but')}))
    expect(second.manifest.rows[0]).toMatchObject({status: 'completed', output: '0-Ada.mp4'})
  })

  it("with --output, the template names every file and rows' own output fields are reported as ignored", async () => {
    const {fake, events} = await run({rows: [{title: 'Ada', output: 'mine/ada.mp4'}, {title: 'Bo'}]})
    expect(fake.calls.map((call) => call.options.output)).toEqual([join(scratch(), 'out/0-Ada.mp4'), join(scratch(), 'out/1-Bo.mp4')])
    expect(events).toContainEqual({type: 'warning', code: 'row-output-ignored', message: expect.stringContaining('1 row names its own output')})
  })

  it('renders only the rows that are not completed, keeping the finished ones and their files', async () => {
    const first = await run({fake: failingOnce(1)})
    expect(first.manifest.rows.map((row) => row.status)).toEqual(['completed', 'failed', 'completed'])
    const before = await readFile(join(scratch(), 'out/0-Ada.mp4'), 'utf8')

    const second = await run({resume: true})
    expect(second.fake.calls.map((call) => call.options.output)).toEqual([join(scratch(), 'out/1-Bo.mp4')])
    expect(second.events[0]).toMatchObject({type: 'batch-start', rows: 3, toRender: 1})
    expect(second.manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    expect(second.manifest.rows[0]).toEqual(first.manifest.rows[0])
    expect(second.manifest.createdAt).toBe(first.manifest.createdAt)
    expect(await readFile(join(scratch(), 'out/0-Ada.mp4'), 'utf8')).toBe(before)

    const third = await run({resume: true})
    expect(third.fake.calls).toEqual([])
    expect(third.summary.counts.completed).toBe(3)
  })

  it('picks up an interrupted batch: the row that was running and the rows never launched', async () => {
    const controller = new AbortController()
    const interrupted = fakeRender({
      onStart: (request) => {
        if (request.options.output!.includes('/1-')) controller.abort()
      },
    })
    const first = await run({fake: interrupted, signal: controller.signal})
    expect(first.manifest.rows.map((row) => row.status)).toEqual(['completed', 'failed', 'skipped'])
    const second = await run({resume: true})
    expect(second.fake.calls.map((call) => call.variables?.title)).toEqual(['Bo', 'Cy'])
  })

  it('renders a completed row again when its output is gone, and says so', async () => {
    await run()
    await rm(join(scratch(), 'out/2-Cy.mp4'))
    const second = await run({resume: true})
    expect(second.fake.calls.map((call) => call.variables?.title)).toEqual(['Cy'])
    expect(second.events).toContainEqual({type: 'warning', code: 'output-missing', message: expect.stringContaining('row 2 was completed but')})
  })

  it('replays the journal a crash left mid-compaction before the current one: a row completed after the rotation stays completed', async () => {
    const first = await run()
    const manifestPath = join(scratch(), 'out/manifest.json')
    const {output: _output, variables: _variables, ...completed} = first.manifest.rows[1]
    // The crash came after the journal was moved aside (holding the row's start) and the new one took
    // its completion, before manifest.json was rewritten: the manifest still has the row pending.
    await writeFile(manifestPath, (await readFile(manifestPath, 'utf8')).replace(/"index":1,"status":"completed"[^}]*"output"/, '"index":1,"status":"pending","output"'))
    expect((await readManifest(manifestPath))!.rows[1].status).toBe('pending')
    await writeFile(join(scratch(), 'out/manifest.journal.jsonl.old'), JSON.stringify({index: 1, status: 'running', startedAt: completed.startedAt}) + '\n')
    await writeFile(join(scratch(), 'out/manifest.journal.jsonl'), JSON.stringify(completed) + '\n')

    expect((await readManifest(manifestPath))!.rows[1]).toEqual(first.manifest.rows[1])
    const second = await run({resume: true})
    expect(second.fake.calls).toEqual([])
    expect(second.events.filter((event) => event.type === 'warning')).toEqual([])
    expect(second.manifest.rows[1]).toEqual(first.manifest.rows[1])
  })

  it('adopts the output of a row killed while running only when the file was written after the row started: a stale file from an earlier run is rendered again', async () => {
    await run()
    const startedAt = new Date()
    const hourBefore = new Date(startedAt.getTime() - 3600_000)
    // Rows 1 and 2 were running when the batch was killed; row 1's file is an earlier run's, row 2's was put in place after it started.
    const running = (index: number) => JSON.stringify({index, status: 'running', startedAt: startedAt.toISOString()}) + '\n'
    await appendFile(join(scratch(), 'out/manifest.journal.jsonl'), running(1) + running(2))
    await utimes(join(scratch(), 'out/1-Bo.mp4'), hourBefore, hourBefore)
    const afterStart = new Date(startedAt.getTime() + 1000)
    await utimes(join(scratch(), 'out/2-Cy.mp4'), afterStart, afterStart)

    const second = await run({resume: true})
    expect(second.fake.calls.map((call) => call.variables?.title)).toEqual(['Bo'])
    const adopted = second.events.filter((event) => event.type === 'warning' && event.code === 'output-adopted')
    expect(adopted).toEqual([expect.objectContaining({message: expect.stringContaining('row 2 was running when the batch stopped')})])
    expect(second.manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
  })

  it('renders every row when there is no manifest yet', async () => {
    const {fake, events} = await run({resume: true})
    expect(fake.calls).toHaveLength(3)
    expect(events).toContainEqual({type: 'warning', code: 'resume-no-manifest', message: expect.stringContaining('every row is rendered')})
  })

  it('refuses a manifest written for other content of the composition, naming the file that changed', async () => {
    const composition = join(scratch(), 'card.html')
    await copyFile(CARD, composition)
    await run({composition, fake: failingOnce(2)})
    await writeFile(composition, (await readFile(composition, 'utf8')).replace('#ffffff', '#eeeeee'))
    const fake = fakeRender()
    const error = await run({composition, fake, resume: true}).catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'BATCH_PREFLIGHT', message: expect.stringMatching(/manifest\.json was written for other content of .*card\.html \(card\.html edited\)\. Run without --resume/)})
    expect(fake.calls).toEqual([])
  })

  it('refuses a manifest written before a sub-composition changed, naming the sub-composition', async () => {
    const dir = scratch()
    await mkdir(join(dir, 'parts'))
    await copyFile(join(REPO_ROOT, 'examples/hello/index.html'), join(dir, 'index.html'))
    await copyFile(join(REPO_ROOT, 'examples/hello/card.html'), join(dir, 'parts/card.html'))
    const index = (await readFile(join(dir, 'index.html'), 'utf8')).replace('data-composition-src="card.html"', 'data-composition-src="parts/card.html"')
    await writeFile(join(dir, 'index.html'), index)
    const first = await run({composition: join(dir, 'index.html')})
    expect(Object.keys(first.manifest.compositionFiles)).toEqual(['index.html', 'parts/card.html'])
    expect((await run({composition: join(dir, 'index.html'), resume: true})).fake.calls).toEqual([])

    const card = join(dir, 'parts/card.html')
    await writeFile(card, (await readFile(card, 'utf8')).replace('#2b6cb0', '#2b6cb1'))
    const fake = fakeRender()
    await expect(run({composition: join(dir, 'index.html'), fake, resume: true})).rejects.toThrow(/other content of .*index\.html \(parts\/card\.html edited\)/)
    expect(fake.calls).toEqual([])
  })

  it('refuses a manifest written with other base variables, naming each variable that differs', async () => {
    await run({baseVariables: {background: '#102030', size: 'large'}})
    expect((await run({baseVariables: {size: 'large', background: '#102030'}, resume: true})).fake.calls).toEqual([])
    const fake = fakeRender()
    const error = await run({baseVariables: {background: '#302010', explode: false}, fake, resume: true}).catch((caught: unknown) => caught)
    expect(error).toMatchObject({
      code: 'BATCH_PREFLIGHT',
      message: expect.stringContaining('was written with other base variables from --variables/--variables-file (background changed, explode added, size removed)'),
    })
    expect(fake.calls).toEqual([])
    await expect(run({resume: true})).rejects.toThrow('(background removed, size removed)')
  })

  it('refuses a manifest made for another composition, other rows, another template or other settings', async () => {
    await run()
    const other = join(scratch(), 'other.html')
    await copyFile(CARD, other)
    const refused = async (overrides: Parameters<typeof run>[0]) => {
      const fake = fakeRender()
      await expect(run({...overrides, fake, resume: true})).rejects.toMatchObject({code: 'BATCH_PREFLIGHT'})
      expect(fake.calls).toEqual([])
      return run({...overrides, fake, resume: true}).catch((error: Error) => error.message)
    }
    expect(await refused({composition: other})).toMatch(/manifest\.json was written for composition .*card\.html, not .*other\.html\. Run without --resume/)
    expect(await refused({rows: [...ROWS, {title: 'Di'}]})).toMatch(/was written for other rows \(batch file .*rows\.json\); the rows of .*rows\.json differ/)
    expect(await refused({options: options({output: join(scratch(), 'out/{title}-{index}.mp4')})})).toContain('was written for --output')
    expect(await refused({options: options({output: join(scratch(), 'out/{index}-{title}.mp4'), fps: 20, quality: 'high'})})).toContain(
      'was rendered with other settings (fps "10" -> "20", quality "draft" -> "high")',
    )
    // The refused runs left the manifest as it was.
    expect((await readManifest(join(scratch(), 'out/manifest.json')))?.counts.completed).toBe(3)
  })

  it('refuses a manifest.json it cannot read as a batch manifest', async () => {
    await run()
    await writeFile(join(scratch(), 'out/manifest.json'), '{"hello": 1}')
    await expect(run({resume: true})).rejects.toThrow(/--resume: .*manifest\.json is not a batch manifest of this version \(version: /)
  })
})
