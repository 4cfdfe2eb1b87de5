import {readFile, readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent, type BatchRequest} from '../../src/lib/batch/index.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {CARD, fakeRender, options, useScratchDir, writeRows} from './support.js'

describe('renderBatch with a stand-in render function', () => {
  const scratch = useScratchDir()

  async function batch(rows: unknown, overrides: Partial<BatchRequest> & {fake?: ReturnType<typeof fakeRender>} = {}) {
    const dir = scratch()
    const fake = overrides.fake ?? fakeRender()
    const events: BatchEvent[] = []
    const request: BatchRequest = {
      composition: CARD,
      batchFile: await writeRows(dir, rows),
      options: options({output: join(dir, 'out/{index}-{title}.mp4')}),
      render: fake.render,
      onEvent: (event) => events.push(event),
      cwd: dir,
      ...overrides,
    }
    const summary = await renderBatch(request)
    const manifest = await readManifest(join(dir, 'out/manifest.json'))
    return {summary, manifest: manifest!, events, fake, dir}
  }

  it('renders one output per row and records each in manifest.json', async () => {
    const {summary, manifest, fake, dir} = await batch([{title: 'Ada'}, {title: 'Grace', background: '#00ff00'}, {title: 'Alan'}], {
      baseVariables: {background: '#ff0000'},
    })
    expect(fake.calls.map((call) => [call.options.output, call.variables])).toEqual([
      [join(dir, 'out/0-Ada.mp4'), {background: '#ff0000', title: 'Ada'}],
      [join(dir, 'out/1-Grace.mp4'), {background: '#00ff00', title: 'Grace'}],
      [join(dir, 'out/2-Alan.mp4'), {background: '#ff0000', title: 'Alan'}],
    ])
    // Rows at once fill the cores; each row's workers keep to one page (the batch's memory budget).
    expect(fake.calls.map((call) => call.pagesPerWorker)).toEqual([1, 1, 1])
    expect(summary).toMatchObject({counts: {completed: 3, failed: 0, skipped: 0, pending: 0, running: 0}, failed: []})
    expect(manifest).toMatchObject({
      composition: CARD,
      batchFile: join(dir, 'rows.json'),
      outputTemplate: join(dir, 'out/{index}-{title}.mp4'),
      settings: {format: 'mp4', fps: '10', quality: 'draft'},
      finishedAt: expect.any(String),
      counts: {completed: 3},
    })
    expect(manifest.rows).toEqual([0, 1, 2].map((index) => ({
      index,
      status: 'completed',
      output: `${index}-${['Ada', 'Grace', 'Alan'][index]}.mp4`,
      variables: {title: ['Ada', 'Grace', 'Alan'][index], background: index === 1 ? '#00ff00' : '#ff0000', size: 'small', explode: false},
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      renderMs: expect.any(Number),
      durationSeconds: 0.5,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    })))
    // Only the outputs, the manifest and the result sheet: no temporary file left behind.
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['0-Ada.mp4', '1-Grace.mp4', '2-Alan.mp4', 'manifest.json', 'results.csv'])
  })

  it('renders nothing and writes no manifest when the preflight fails', async () => {
    const dir = scratch()
    const fake = fakeRender()
    const attempt = (rows: unknown, extra: Partial<BatchRequest> = {}) =>
      writeRows(dir, rows).then((batchFile) =>
        renderBatch({composition: CARD, batchFile, options: options({output: join(dir, 'out/{title}.mp4'), ...extra.options}), render: fake.render, cwd: dir, ...extra}).then(
          () => {
            throw new Error('the batch ran')
          },
          (error: unknown) => {
            expect(isEngineError(error, 'BATCH_PREFLIGHT')).toBe(true)
            return (error as Error).message
          },
        ),
      )
    expect(await attempt([{title: 'Ada'}, 7])).toContain('row 1: must be a JSON object')
    expect(await attempt([{title: 'Ada'}, {size: 'large'}])).toContain('row 1, --output {title}: the row has no "title" key')
    expect(await attempt([{title: 'Ada'}, {title: 'Ada'}])).toContain('is also the output of row 0')
    expect(await attempt([{title: 'Ada'}, {title: 'Bo', size: 'huge'}], {options: options({output: join(dir, 'out/{title}.mp4'), strictVariables: true})})).toContain(
      'row 1, "size": [enum-out-of-range]',
    )
    expect(await attempt({items: []})).toContain('the batch file has no rows; it must hold a JSON array of row objects or {"rows": [...]} (.json)')
    await writeFile(join(dir, 'broken.json'), '[{"title": ')
    await expect(renderBatch({composition: CARD, batchFile: join(dir, 'broken.json'), options: options(), render: fake.render, cwd: dir})).rejects.toThrow(
      /--batch ".*broken\.json": not valid JSON/,
    )
    expect(fake.calls).toEqual([])
    expect(await readdir(dir)).not.toContain('out')
  })

  it('accepts {"rows": [...]} and defaults the template to renders/<name>-{index}.<ext>', async () => {
    const dir = scratch()
    const fake = fakeRender()
    await renderBatch({composition: CARD, batchFile: await writeRows(dir, {rows: [{}, {}]}), options: options(), render: fake.render, cwd: dir})
    expect(fake.calls.map((call) => call.options.output)).toEqual([join(dir, 'renders/card-0.mp4'), join(dir, 'renders/card-1.mp4')])
    expect((await readManifest(join(dir, 'renders/manifest.json')))?.counts.completed).toBe(2)
  })

  it('records a failing row with its error and renders the rows after it', async () => {
    const {summary, manifest} = await batch([{title: 'Ada'}, {title: 'Bo', explode: true}, {title: 'Cy'}])
    expect(summary.counts).toMatchObject({completed: 2, failed: 1})
    expect(summary.failed).toEqual([{row: 1, code: 'PAGE_ERROR', message: 'row exploded: Bo'}])
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'failed', 'completed'])
    expect(manifest.rows[1]).toMatchObject({error: {code: 'PAGE_ERROR', message: 'row exploded: Bo'}, renderMs: expect.any(Number)})
  })

  it('with fail-fast launches no row after the first failure and marks the rest skipped', async () => {
    const {summary, manifest, fake} = await batch([{title: 'Ada'}, {title: 'Bo', explode: true}, {title: 'Cy'}, {title: 'Di'}], {
      options: options({output: join(scratch(), 'out/{index}-{title}.mp4'), batchFailFast: true}),
    })
    expect(fake.calls).toHaveLength(2)
    expect(summary.counts).toMatchObject({completed: 1, failed: 1, skipped: 2})
    expect(manifest.rows.slice(2)).toEqual([
      expect.objectContaining({status: 'skipped', skippedReason: 'not launched: row 1 failed and --batch-fail-fast is set'}),
      expect.objectContaining({status: 'skipped'}),
    ])
  })

  it('with fail-fast lets rows already running finish', async () => {
    // Ada is still rendering when Bo fails: her render waits for Bo's failure, not for a clock.
    let boFailed!: () => void
    const failed = new Promise<void>((resolve) => (boFailed = resolve))
    const fake = fakeRender({onStart: (request) => (request.variables?.explode ? undefined : failed)})
    const {manifest} = await batch([{title: 'Ada'}, {title: 'Bo', explode: true}, {title: 'Cy'}], {
      fake,
      onEvent: (event) => {
        if (event.type === 'row' && event.status === 'failed') boFailed()
      },
      options: options({output: join(scratch(), 'out/{index}-{title}.mp4'), batchFailFast: true, batchConcurrency: 2}),
    })
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'failed', 'skipped'])
  })

  it('runs --batch-concurrency rows at once', async () => {
    const rows = Array.from({length: 6}, (_, index) => ({title: `r${index}`}))
    const one = await batch(rows, {fake: fakeRender({delayMs: 20})})
    expect(one.fake.peak()).toBe(1)
    const three = await batch(rows, {fake: fakeRender({delayMs: 20}), options: options({output: join(scratch(), 'three/{index}.mp4'), batchConcurrency: 3})})
    expect(three.fake.peak()).toBe(3)
    expect(three.summary.counts.completed).toBe(6)
  })

  it('pipelines rows: the next row captures while the one before assembles, at most two rows in flight per worker', async () => {
    const order: string[] = []
    let releaseAda!: () => void
    // Ada's assembly ends the moment Bo starts. A batch without pipelining never starts Bo before
    // that: after 30 s (a machine many times slower than any) Ada goes on, and the order below fails instead of hanging.
    const adaMayFinish = new Promise<void>((resolve) => {
      const fallback = setTimeout(resolve, 30_000)
      releaseAda = () => {
        clearTimeout(fallback)
        resolve()
      }
    })
    const fake = fakeRender({
      onStart: (request) => {
        order.push(`start ${String(request.variables?.title)}`)
        if (request.variables?.title === 'Bo') releaseAda()
      },
      assemble: async (request) => {
        const title = String(request.variables?.title)
        order.push(`assemble ${title}`)
        if (title === 'Ada') await adaMayFinish
        order.push(`assembled ${title}`)
      },
    })
    const {manifest} = await batch([{title: 'Ada'}, {title: 'Bo'}, {title: 'Cy'}], {fake})
    expect(order).toEqual(['start Ada', 'assemble Ada', 'start Bo', 'assembled Ada', 'assemble Bo', 'assembled Bo', 'start Cy', 'assemble Cy', 'assembled Cy'])
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
  })

  it('compiles the template once: every row gets the same compiled template and its own values', async () => {
    const {fake} = await batch([{title: 'Ada'}, {title: 'Bo'}, {title: 'Cy'}])
    const templates = new Set(fake.calls.map((call) => call.template))
    expect(templates.size).toBe(1)
    const [template] = templates
    expect(template?.file).toBe(CARD)
    expect(template?.variables).not.toMatchObject({title: expect.stringMatching(/Ada|Bo|Cy/)})
    expect(fake.calls.map((call) => call.variables?.title)).toEqual(['Ada', 'Bo', 'Cy'])
  })

  it('keeps the manifest true while rows run: the running row is on disk before its render starts', async () => {
    const seen: string[][] = []
    const fake = fakeRender({
      onStart: async (request) => {
        const manifest = await readManifest(join(request.options.output!, '../manifest.json'))
        seen.push(manifest!.rows.map((row) => row.status))
      },
    })
    await batch([{title: 'Ada'}, {title: 'Bo'}, {title: 'Cy'}], {fake})
    expect(seen).toEqual([
      ['running', 'pending', 'pending'],
      ['completed', 'running', 'pending'],
      ['completed', 'completed', 'running'],
    ])
  })

  it('reports progress per row and a final summary', async () => {
    const {events, dir} = await batch([{title: 'Ada'}, {title: 'Bo', explode: true}])
    expect(events).toEqual([
      {type: 'batch-start', composition: CARD, manifest: join(dir, 'out/manifest.json'), rows: 2, toRender: 2, concurrency: 1, failFast: false},
      {type: 'row', row: 0, status: 'running', output: join(dir, 'out/0-Ada.mp4')},
      expect.objectContaining({type: 'progress', row: 0, frame: 5}),
      expect.objectContaining({type: 'row', row: 0, status: 'completed', renderMs: expect.any(Number), durationSeconds: 0.5}),
      {type: 'row', row: 1, status: 'running', output: join(dir, 'out/1-Bo.mp4')},
      expect.objectContaining({type: 'progress', row: 1}),
      expect.objectContaining({type: 'row', row: 1, status: 'failed', error: {code: 'PAGE_ERROR', message: 'row exploded: Bo'}}),
      {
        type: 'batch-done',
        counts: {pending: 0, running: 0, completed: 1, failed: 1, skipped: 0, cached: 0},
        manifest: join(dir, 'out/manifest.json'),
        elapsedMs: expect.any(Number),
        rowsPerMinute: expect.any(Number),
        results: join(dir, 'out/results.csv'),
      },
    ])
    expect(JSON.parse(JSON.stringify(events[1]))).toEqual({type: 'row', row: 0, status: 'running', output: join(dir, 'out/0-Ada.mp4')})
  })

  it('on interruption fails the running row as CANCELLED and skips the rows not launched', async () => {
    const controller = new AbortController()
    const fake = fakeRender({delayMs: 10_000, onStart: () => void setTimeout(() => controller.abort(), 20)})
    const {manifest} = await batch([{title: 'Ada'}, {title: 'Bo'}, {title: 'Cy'}], {fake, signal: controller.signal})
    expect(manifest.rows.map((row) => [row.status, row.error?.code ?? row.skippedReason])).toEqual([
      ['failed', 'CANCELLED'],
      ['skipped', 'not launched: the batch was interrupted'],
      ['skipped', 'not launched: the batch was interrupted'],
    ])
  })

  it('raises the error that stops the manifest from being written', async () => {
    const dir = scratch()
    const batchFile = await writeRows(dir, [{title: 'Ada'}])
    await writeFile(join(dir, 'out'), 'a file where the output directory should be')
    await expect(
      renderBatch({composition: CARD, batchFile, options: options({output: join(dir, 'out/{title}.mp4')}), render: fakeRender().render, cwd: dir}),
    ).rejects.toThrow(/cannot write the batch manifest .*out\/manifest\.json/)
  })

  it('never leaves a torn manifest: every write replaces the file whole', async () => {
    const dir = scratch()
    const reads: string[] = []
    const rows = Array.from({length: 8}, (_, index) => ({title: `r${index}`}))
    const fake = fakeRender({
      delayMs: 1,
      onStart: async () => {
        reads.push(await readFile(join(dir, 'out/manifest.json'), 'utf8'))
      },
    })
    await batch(rows, {fake, options: options({output: join(dir, 'out/{index}-{title}.mp4'), batchConcurrency: 4})})
    expect(reads).toHaveLength(8)
    for (const text of reads) expect(() => JSON.parse(text)).not.toThrow()
  })
})
