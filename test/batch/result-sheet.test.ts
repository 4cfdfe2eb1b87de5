import {createHash} from 'node:crypto'
import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {parse} from 'csv-parse/sync'
import {describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent, type BatchRequest} from '../../src/lib/batch/index.js'
import {rebuildResults} from '../../src/lib/batch/results/rebuild-results.js'
import {resultStatus} from '../../src/lib/batch/results/result-row.js'
import {writeResultSheet} from '../../src/lib/batch/results/result-sheet.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {CARD, fakeRender, options, useScratchDir} from './support.js'
import {until} from '../support/until.js'

type Line = Record<string, string>
const sheetOf = async (path: string) => parse(await readFile(path), {columns: true}) as Line[]
const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex')

describe('the result sheet of a batch', () => {
  const scratch = useScratchDir()

  async function batch(name: string, rows: string, overrides: Partial<BatchRequest> = {}) {
    const dir = scratch()
    const batchFile = join(dir, name)
    await writeFile(batchFile, rows)
    const events: BatchEvent[] = []
    const summary = await renderBatch({
      composition: CARD,
      batchFile,
      options: options({output: join(dir, 'out/{index}-{customer_id}.mp4')}),
      render: fakeRender().render,
      onEvent: (event) => events.push(event),
      cwd: dir,
      ...overrides,
    })
    return {dir, batchFile, summary, events}
  }

  it('lists every row in input order: its own columns as read, then its outcome; row data never reaches the page and is named once', async () => {
    const csv = 'customer_id,title,explode,status,email\nc-1,Ada,,vip,ada@example.com\nc-2,Bob,yes,,bob@example.com\nc-3,Cy,no,,\n'
    const {dir, summary, events} = await batch('rows.csv', csv)
    expect(summary.results).toBe(join(dir, 'out/results.csv'))
    const sheet = await sheetOf(join(dir, 'out/results.csv'))
    // The row's own "status" column keeps its value under another name: a sheet never has two columns of one name.
    expect(Object.keys(sheet[0])).toEqual(['customer_id', 'title', 'explode', 'input_status', 'email', 'status', 'output', 'sha256', 'bytes', 'duration_seconds', 'frames', 'poster', 'render_ms', 'warnings', 'error_code', 'error_message'])
    expect(sheet.map((line) => [line.customer_id, line.title, line.explode, line.input_status, line.email, line.status, line.output, line.error_code])).toEqual([
      ['c-1', 'Ada', '', 'vip', 'ada@example.com', 'succeeded', '0-c-1.mp4', ''],
      ['c-2', 'Bob', 'yes', '', 'bob@example.com', 'failed', '1-c-2.mp4', 'PAGE_ERROR'],
      ['c-3', 'Cy', 'no', '', '', 'succeeded', '2-c-3.mp4', ''],
    ])
    expect(sheet[1].error_message).toContain('row exploded: Bob')
    expect(sheet[0].sha256).toBe(await sha256(join(dir, 'out/0-c-1.mp4')))
    expect(sheet[0].duration_seconds).toBe('0.5')
    // What the page saw: variables only (the fake render writes them into the output).
    expect(JSON.parse(await readFile(join(dir, 'out/0-c-1.mp4'), 'utf8'))).toEqual({title: 'Ada'})
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows[0].data).toEqual({customer_id: 'c-1', status: 'vip', email: 'ada@example.com'})
    expect(manifest.rows[0].variables).not.toHaveProperty('customer_id')
    const notices = events.filter((event) => event.type === 'warning')
    expect(notices).toEqual([
      {type: 'warning', code: 'row-data', level: 'info', message: expect.stringMatching(/^columns "customer_id", "status", "email" are not declared variables: kept as row data/)},
    ])
    const finished = events.filter((event) => event.type === 'row' && event.status !== 'running')
    expect(finished.map((event) => (event as {data?: unknown}).data)).toEqual(expect.arrayContaining([{customer_id: 'c-1', status: 'vip', email: 'ada@example.com'}]))
    expect(events.at(-1)).toMatchObject({type: 'batch-done', results: join(dir, 'out/results.csv')})
  })

  it('escapes cells a spreadsheet would run as a formula, in the cells and in column names, and shows control characters in names escaped', async () => {
    const hostile = '"=cmd|\' /C calc\'!A0","+1","-2","@SUM(A1)","\tTab","\rCR","a\u001b]0;owned\u0007b"'
    const csv = `customer_id,title,${hostile}\nc-1,"=HYPERLINK(""http://x"")",1,2,-3,@4,"\tfive","\rsix",7\n`
    const {dir, events} = await batch('hostile.csv', csv)
    const text = await readFile(join(dir, 'out/results.csv'), 'utf8')
    const [header, line] = parse(text) as string[][]
    // Header names are read trimmed, so a tab or CR first is gone there; in cells it stays, escaped.
    expect(header.slice(0, 8)).toEqual(['customer_id', 'title', "'=cmd|' /C calc'!A0", "'+1", "'-2", "'@SUM(A1)", 'Tab', 'CR'])
    expect(line.slice(1, 8)).toEqual(['\'=HYPERLINK("http://x")', '1', '2', "'-3", "'@4", "'\tfive", "'\rsix"])
    for (const cell of [...header, ...line]) expect(cell).not.toMatch(/^[=+\-@\t\r]/)
    const notice = events.find((event) => event.type === 'warning' && event.code === 'row-data') as {message: string}
    expect(notice.message).toContain('"a\\u001b]0;owned\\u0007b"')
    expect(notice.message).not.toMatch(/[\u0000-\u001f]/)
  })

  it('--results FILE.jsonl writes JSON Lines; `batch results` rebuilds the same sheet from the files, and refuses rows that changed', async () => {
    const rows = '{"customer_id":"c-1","title":"Ada"}\n{"customer_id":"c-2","title":"Bo","explode":true}\n'
    const {dir, batchFile} = await batch('rows.jsonl', rows, {results: 'sheet.jsonl'})
    const lines = (await readFile(join(dir, 'sheet.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => [line.customer_id, line.title, line.status, line.output])).toEqual([
      ['c-1', 'Ada', 'succeeded', 'out/0-c-1.mp4'],
      ['c-2', 'Bo', 'failed', 'out/1-c-2.mp4'],
    ])
    const written = await readFile(join(dir, 'sheet.jsonl'), 'utf8')
    const rebuilt = await rebuildResults({manifest: join(dir, 'out'), results: join(dir, 'again.jsonl')})
    expect(rebuilt).toEqual({results: join(dir, 'again.jsonl'), rows: 2, notices: []})
    expect(await readFile(join(dir, 'again.jsonl'), 'utf8')).toBe(written)

    await writeFile(batchFile, rows.replace('Ada', 'Eve'))
    const refused = await rebuildResults({manifest: join(dir, 'out/manifest.json')}).catch((error: unknown) => error)
    expect(isEngineError(refused, 'BATCH_PREFLIGHT')).toBe(true)
    expect((refused as Error).message).toContain('are not the ones')
  })

  it('refuses a sheet that is neither .csv nor .jsonl, or that would replace the rows file, before rendering anything', async () => {
    const failed = await batch('rows.jsonl', '{"customer_id":"c-1"}\n', {results: 'sheet.xlsx'}).catch((error: unknown) => error)
    expect(isEngineError(failed, 'INVALID_FLAG')).toBe(true)
    expect((failed as Error).message).toContain('--results "sheet.xlsx": a result sheet is a .csv or a .jsonl file')
    const fake = fakeRender()
    const overRows = await batch('rows.jsonl', '{"customer_id":"c-1"}\n', {results: 'rows.jsonl', render: fake.render}).catch((error: unknown) => error)
    expect((overRows as Error).message).toContain('--results "rows.jsonl" is the batch\'s rows file')
    expect(fake.calls).toEqual([])
  })

  it('needs-review is a completed (or cached) row with a text-overflow warning; other statuses keep their name', () => {
    const overflow = [{code: 'page-error'}, {code: 'text-overflow'}]
    expect(resultStatus('completed', overflow)).toBe('needs-review')
    expect(resultStatus('cached', overflow)).toBe('needs-review')
    expect(resultStatus('completed', [{code: 'page-error'}])).toBe('succeeded')
    expect(['cached', 'failed', 'skipped', 'pending'].map((status) => resultStatus(status))).toEqual(['cached', 'failed', 'skipped', 'pending'])
  })

  it('streams: a sheet of 100,000 rows is written from a generator without holding it', async () => {
    const path = join(scratch(), 'big.csv')
    let produced = 0
    let peakHeap = 0
    async function* rows() {
      for (let index = 0; index < 100_000; index++) {
        produced++
        if (index % 10_000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
        yield {columns: {id: `c-${index}`, note: '=x'}, status: 'succeeded' as const, output: `${index}.mp4`, bytes: 1000 + index}
      }
    }
    const before = process.memoryUsage().heapUsed
    await writeResultSheet(path, ['id', 'note'], rows())
    const text = await readFile(path, 'utf8')
    expect(produced).toBe(100_000)
    expect(text.split('\n')).toHaveLength(100_002)
    expect(text.split('\n')[100_000]).toBe("c-99999,'=x,succeeded,99999.mp4,,100999,,,,,,,")
    // The file is ~5 MB; the writer's own growth stays far below holding its lines.
    expect(peakHeap - before).toBeLessThan(50 * 1024 * 1024)
  })

  it('is written while the batch runs, at the manifest\'s compactions: a spreadsheet can follow it, and the end makes it whole', async () => {
    const rows = 'customer_id,title\n' + Array.from({length: 40}, (_, index) => `c-${index},Row ${index}`).join('\n') + '\n'
    const sheetPath = () => join(scratch(), 'out/results.csv')
    let midRun: Line[] | undefined
    const {summary} = await batch('rows.csv', rows, {
      // The last row waits until a compaction has written the sheet (after 3 s of rows and enough journal), then reads it.
      render: fakeRender({
        onStart: async (request) => {
          if (request.variables?.title !== 'Row 39') return
          expect(await until(() => readFile(sheetPath()).then(() => true, () => false), 30_000)).toBe(true)
          midRun = await sheetOf(sheetPath())
        },
      }).render,
    })
    expect(midRun).toHaveLength(40)
    expect(midRun!.slice(0, 5).map((line) => [line.customer_id, line.status])).toEqual([0, 1, 2, 3, 4].map((index) => [`c-${index}`, 'succeeded']))
    expect(midRun![39]).toMatchObject({customer_id: 'c-39', status: 'running', sha256: ''})
    const end = await sheetOf(summary.results!)
    expect(end.map((line) => line.status)).toEqual(Array(40).fill('succeeded'))
  }, 60_000)
})
