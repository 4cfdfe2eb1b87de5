import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {createHash} from 'node:crypto'
import {readdir, readFile, stat} from 'node:fs/promises'
import {parse} from 'csv-parse/sync'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {describe, expect, it} from 'vitest'
import {readManifest, type BatchEvent} from '../../src/lib/batch/index.js'
import {CARD, useScratchDir, writeRows} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

// Runs the built CLI (`npm run build` first) with real renders, the way a user does.
const repo = join(import.meta.dirname, '../..')
const TINY = ['--fps', '10', '--quality', 'draft']

function engine(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(repo, 'bin/run.js'), 'render', CARD, ...args], {cwd, encoding: 'utf8'})
  return {status: result.status, stdout: result.stdout, stderr: result.stderr}
}

function jsonEvents(stdout: string): Array<BatchEvent | {type: 'error'; error: {code: string; message: string}}> {
  return stdout.trim().split('\n').map((line) => JSON.parse(line))
}

function probe(file: string): {width: number; height: number; frames: number} {
  const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,nb_read_frames', '-of', 'json', file], {
    encoding: 'utf8',
  })
  const stream = JSON.parse(out).streams[0]
  return {width: stream.width, height: stream.height, frames: Number(stream.nb_read_frames)}
}

/** RGB of the first frame at (x, y), averaged over a 4x4 block. */
function pixel(file: string, x = 40, y = 40): number[] {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `crop=w=4:h=4:x=${x}:y=${y},scale=1:1`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'])
  return [...raw.subarray(0, 3)]
}

function near(actual: number[], expected: number[]): void {
  actual.forEach((channel, index) => expect(Math.abs(channel - expected[index]), `channel ${index} of ${actual}`).toBeLessThanOrEqual(8))
}

describe('engine render --batch', PROCESSES, () => {
  const scratch = useScratchDir()

  it('renders one file per row from the output template, with a manifest entry for each', async () => {
    const dir = scratch()
    await writeRows(dir, [
      {title: 'Ada', background: '#ff0000'},
      {title: 'Grace', background: '#00ff00'},
      {title: 'Alan', background: '#0000ff'},
    ])
    const {status, stdout, stderr} = engine(dir, '--batch', 'rows.json', '-o', 'renders/{index}-{title}.mp4', ...TINY)
    expect(stderr).toBe('')
    expect(status).toBe(0)
    expect(stdout).toContain('row 1 (renders/1-Grace.mp4): done in')
    expect(stdout).toMatch(/3 completed, 0 failed, 0 skipped in .* manifest renders\/manifest\.json/)
    const colors = [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ]
    for (const [index, name] of ['0-Ada.mp4', '1-Grace.mp4', '2-Alan.mp4'].entries()) {
      const file = join(dir, 'renders', name)
      expect(probe(file)).toEqual({width: 320, height: 180, frames: 5})
      near(pixel(file), colors[index])
    }
    const manifest = (await readManifest(join(dir, 'renders/manifest.json')))!
    expect(manifest.rows).toEqual([
      expect.objectContaining({index: 0, status: 'completed', output: '0-Ada.mp4', durationSeconds: 0.5, renderMs: expect.any(Number)}),
      expect.objectContaining({index: 1, status: 'completed', output: '1-Grace.mp4', variables: {title: 'Grace', background: '#00ff00', size: 'small', explode: false}}),
      expect.objectContaining({index: 2, status: 'completed', output: '2-Alan.mp4'}),
    ])
  })

  it('records a row whose composition script throws, renders the others, and exits non-zero', async () => {
    const dir = scratch()
    await writeRows(dir, [{title: 'Ada'}, {title: 'Bo', explode: true}, {title: 'Cy'}])
    const {status, stderr} = engine(dir, '--batch', 'rows.json', '-o', 'out/{title}.mp4', ...TINY)
    expect(status).toBe(1)
    expect(stderr).toMatch(/^error \[BATCH_ROW_FAILED\]: 1 of 3 rows failed:\n {2}- row 1: \[PAGE_ERROR\] row exploded: Bo/)
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'failed', 'completed'])
    expect(manifest.rows[1].error).toEqual({code: 'PAGE_ERROR', message: expect.stringContaining('row exploded: Bo')})
    expect((await readdir(join(dir, 'out'))).filter((name) => !name.startsWith('.')).sort()).toEqual(['Ada.mp4', 'Cy.mp4', 'manifest.json', 'results.csv'])
  })

  it('renders nothing when the preflight finds a problem', async () => {
    const dir = scratch()
    await writeRows(dir, [{title: 'Ada'}, {size: 'large'}, {title: 'Ada'}, 'Bo', {title: 'Di', size: 'huge'}])
    const {status, stderr} = engine(dir, '--batch', 'rows.json', '-o', 'out/{title}.mp4', '--strict-variables', ...TINY)
    expect(status).toBe(1)
    expect(stderr.split('\n')).toEqual([
      'error [BATCH_PREFLIGHT]: --batch: 4 problems found before rendering, so nothing was rendered:',
      '  - row 1, --output {title}: the row has no "title" key; add it to every row or remove the placeholder',
      '  - row 2, --output: "out/Ada.mp4" is also the output of row 0; make the template unique per row, for example with {index}',
      '  - row 3: must be a JSON object of variable values, got a string',
      '  - row 4, "size": [enum-out-of-range] "huge" is not an option, expected one of "small", "large"',
      'Fix the batch file (.csv/.tsv with a header of variable ids, .jsonl/.ndjson, or .json; see docs/guides/batch.md), the --output template or the variables, then run again.',
      '',
    ])
    expect(existsSync(join(dir, 'out'))).toBe(false)
  })

  it('with --batch-fail-fast launches nothing after the first failure; --json streams row events and a summary', async () => {
    const dir = scratch()
    await writeRows(dir, [{title: 'Ada', explode: true}, {title: 'Bo'}, {title: 'Cy'}])
    const {status, stdout} = engine(dir, '--batch', 'rows.json', '-o', 'out/{index}.mp4', '--batch-fail-fast', '--json', ...TINY)
    expect(status).toBe(1)
    const events = jsonEvents(stdout)
    expect(events.filter((event) => event.type === 'row')).toEqual([
      {type: 'row', row: 0, status: 'running', output: join(dir, 'out/0.mp4')},
      expect.objectContaining({row: 0, status: 'failed', error: {code: 'PAGE_ERROR', message: expect.stringContaining('row exploded: Ada')}}),
    ])
    // The rows never launched are skipped together: one event, not one per row.
    expect(events.filter((event) => event.type === 'rows-skipped')).toEqual([{type: 'rows-skipped', count: 2, reason: 'not launched: row 0 failed and --batch-fail-fast is set'}])
    expect(events).toContainEqual(expect.objectContaining({type: 'stage', stage: 'compile', row: 0}))
    expect(events.at(-2)).toEqual(expect.objectContaining({type: 'batch-done', counts: {pending: 0, running: 0, completed: 0, failed: 1, skipped: 2, cached: 0}, manifest: join(dir, 'out/manifest.json')}))
    expect(events.at(-1)).toEqual({type: 'error', error: expect.objectContaining({code: 'BATCH_ROW_FAILED'})})
    expect((await readdir(join(dir, 'out'))).filter((name) => name.endsWith('.mp4'))).toEqual([])
  })

  it('after a SIGKILL mid-batch, --resume renders only the rows that were not completed', async () => {
    const dir = scratch()
    await writeRows(dir, [{title: 'r0'}, {title: 'r1'}, {title: 'r2'}, {title: 'r3'}])
    const args = [join(repo, 'bin/run.js'), 'render', CARD, '--batch', 'rows.json', '-o', 'out/{index}.mp4', '--json', ...TINY]

    const child = spawn(process.execPath, args, {cwd: dir, stdio: ['ignore', 'pipe', 'ignore']})
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    let completed = 0
    for await (const line of createInterface({input: child.stdout})) {
      const event = JSON.parse(line) as BatchEvent
      if (event.type === 'row' && event.status === 'completed' && ++completed === 2) {
        child.kill('SIGKILL')
        break
      }
    }
    expect(await exited).toBe('SIGKILL')
    const killed = (await readManifest(join(dir, 'out/manifest.json')))!
    // Rows are pipelined and may complete out of order: at least two are done, the last is not.
    for (const row of killed.rows) expect(row.status).toMatch(/^(running|pending|completed)$/)
    const done = killed.rows.filter((row) => row.status === 'completed').map((row) => row.index)
    const notDone = killed.rows.filter((row) => row.status !== 'completed').map((row) => row.index)
    expect(done.length).toBeGreaterThanOrEqual(2)
    expect(notDone).toContain(3)
    expect(killed.finishedAt).toBeUndefined()
    const mtimes = async () => Promise.all(done.map(async (index) => (await stat(join(dir, `out/${index}.mp4`))).mtimeMs))
    const before = await mtimes()

    const resumed = spawnSync(process.execPath, [...args, '--resume'], {cwd: dir, encoding: 'utf8'})
    expect(resumed.status).toBe(0)
    const events = jsonEvents(resumed.stdout)
    // A row killed after its file was put in place (but before the manifest said so) is kept, not rendered again.
    const adopted = events.flatMap((event) => (event.type === 'warning' && event.code === 'output-adopted' ? [Number(/row (\d+)/.exec(event.message)![1])] : []))
    const again = notDone.filter((index) => !adopted.includes(index))
    expect(events.find((event) => event.type === 'batch-start')).toMatchObject({rows: 4, toRender: again.length})
    expect(events.filter((event) => event.type === 'row' && event.status === 'running').map((event) => (event as {row: number}).row)).toEqual(again)
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
    expect(manifest.rows.filter((row) => done.includes(row.index))).toEqual(killed.rows.filter((row) => done.includes(row.index)))
    expect(await mtimes()).toEqual(before)
    for (const index of notDone) expect(probe(join(dir, `out/${index}.mp4`)).frames).toBe(5)
    // The result sheet is true after the kill and the resume: every row, in order, with its file's hash.
    const sheet = parse(await readFile(join(dir, 'out/results.csv')), {columns: true}) as Array<Record<string, string>>
    expect(sheet.map((line) => [line.title, line.status, line.output])).toEqual([0, 1, 2, 3].map((index) => [`r${index}`, 'succeeded', `${index}.mp4`]))
    // A row adopted on resume (its file was in place) has no frame count recorded; every other row has its own.
    for (const index of [...done, ...again]) expect(sheet[index].frames).toBe('5')
    for (const [index, line] of sheet.entries()) expect(line.sha256).toBe(createHash('sha256').update(await readFile(join(dir, `out/${index}.mp4`))).digest('hex'))
  })

  it('prints only the manifest path with --quiet, and refuses --resume without --batch', async () => {
    const dir = scratch()
    await writeRows(dir, [{title: 'Ada'}])
    const quiet = engine(dir, '--batch', 'rows.json', '-o', 'q/{index}.mp4', '--quiet', ...TINY)
    expect(quiet).toMatchObject({status: 0, stdout: 'q/manifest.json\n'})
    const resume = engine(dir, '--resume', ...TINY)
    expect(resume.status).toBe(1)
    expect(resume.stderr).toContain('error [INVALID_FLAG]: --resume only applies to a batch: add --batch <rows.csv>')
  })
})
