import {copyFile, readFile, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent, type BatchRequest} from '../../src/lib/batch/index.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
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

  it('renders every row when there is no manifest yet', async () => {
    const {fake, events} = await run({resume: true})
    expect(fake.calls).toHaveLength(3)
    expect(events).toContainEqual({type: 'warning', code: 'resume-no-manifest', message: expect.stringContaining('every row is rendered')})
  })

  it('warns when the composition changed since the manifest was written', async () => {
    const composition = join(scratch(), 'card.html')
    await copyFile(CARD, composition)
    await run({composition, fake: failingOnce(2)})
    await writeFile(composition, (await readFile(composition, 'utf8')).replace('#ffffff', '#eeeeee'))
    const second = await run({composition, resume: true})
    expect(second.fake.calls).toHaveLength(1)
    expect(second.events).toContainEqual(expect.objectContaining({type: 'warning', code: 'composition-changed'}))
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
