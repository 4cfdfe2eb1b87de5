import {execFileSync} from 'node:child_process'
import {readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest} from '../../src/lib/batch/index.js'
import {runCli} from '../support/run-cli.js'
import {CARD, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

const TINY = ['--fps', '10', '--quality', 'draft']

/** RGB of the first frame (or the image) at (x, y), averaged over a 4x4 block. */
function pixel(file: string, x = 40, y = 40): number[] {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `crop=w=4:h=4:x=${x}:y=${y},scale=1:1`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'])
  return [...raw.subarray(0, 3)]
}

function near(actual: number[], expected: number[]): void {
  actual.forEach((channel, index) => expect(Math.abs(channel - expected[index]), `channel ${index} of ${actual}`).toBeLessThanOrEqual(8))
}

function frames(file: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file], {encoding: 'utf8'})
  return Number(out.trim())
}

describe('batch files as users have them: CSV, JSON Lines, standard input', PROCESSES, () => {
  const scratch = useScratchDir()

  it('engine render --batch rows.csv: cells typed by the declarations, quoted commas, an extra column for the template', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), 'title,background,explode,customer_id\r\n"Smith, Ada",#ff0000,no,c-1\r\nBo,#0000ff,0,c-2\r\n')
    const run = await runCli(['render', CARD, '--batch', 'rows.csv', '-o', 'out/{customer_id}.mp4', ...TINY], {cwd: dir})
    expect(run.code, run.stderr).toBe(0)
    // customer_id is row data: named once, never sent to the page (no per-row "undeclared" warning).
    expect(run.stderr).not.toContain('undeclared')
    expect(run.stderr.match(/column "customer_id" is not a declared variable: kept as row data/g)).toHaveLength(1)
    near(pixel(join(dir, 'out/c-1.mp4')), [255, 0, 0])
    near(pixel(join(dir, 'out/c-2.mp4')), [0, 0, 255])
    expect(frames(join(dir, 'out/c-2.mp4'))).toBe(5)
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows.map((row) => row.variables)).toEqual([
      {title: 'Smith, Ada', background: '#ff0000', explode: false, size: 'small'},
      {title: 'Bo', background: '#0000ff', explode: false, size: 'small'},
    ])
    expect(manifest.rows.map((row) => row.data)).toEqual([{customer_id: 'c-1'}, {customer_id: 'c-2'}])
  })

  it('engine still --batch - reads JSON Lines from standard input; rows name their own files with output or outputKey', async () => {
    const dir = scratch()
    const rows = ['{"background":"#00ff00","output":"thumbs/green.png"}', '', '{"outputKey":"thumbs/red.png","variables":{"background":"#ff0000"}}'].join('\n')
    const run = await runCli(['still', CARD, '--batch', '-'], {cwd: dir, input: rows})
    expect(run.code, run.stderr).toBe(0)
    expect((await readdir(join(dir, 'thumbs'))).sort()).toEqual(['green.png', 'manifest.json', 'red.png', 'results.csv'])
    near(pixel(join(dir, 'thumbs/green.png')), [0, 255, 0])
    near(pixel(join(dir, 'thumbs/red.png')), [255, 0, 0])
  })

  it('engine still --batch rows.tsv and --batch-format csv for a file whose name does not say', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.tsv'), 'background\ttitle\n#0000ff\tA\tB\n')
    await writeFile(join(dir, 'export.txt'), 'background\n#ffffff\n')
    const tsv = await runCli(['still', CARD, '--batch', 'rows.tsv', '-o', 'a/{index}.png'], {cwd: dir})
    expect(tsv.code).toBe(1)
    expect(tsv.stderr).toContain('row 0 (line 2): has 3 cells; the header has 2')
    const txt = await runCli(['still', CARD, '--batch', 'export.txt', '--batch-format', 'csv', '-o', 'b/{index}.png'], {cwd: dir})
    expect(txt.code, txt.stderr).toBe(0)
    near(pixel(join(dir, 'b/0.png')), [255, 255, 255])
  })

  it('refuses a bad cell before rendering anything, naming row, line, column and value, and a file it cannot read by name', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), 'title,explode\nAda,no\nBo,maybe\n')
    const run = await runCli(['render', CARD, '--batch', 'rows.csv', '-o', 'out/{index}.mp4', ...TINY], {cwd: dir})
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('[BATCH_PREFLIGHT]')
    expect(run.stderr).toContain('row 1 (line 3), column "explode": "maybe" is not a boolean; write true/false, 1/0 or yes/no')
    expect(await readdir(dir)).toEqual(['rows.csv'])
    await writeFile(join(dir, 'rows.xlsx'), 'PK')
    const xlsx = await runCli(['render', CARD, '--batch', 'rows.xlsx'], {cwd: dir})
    expect(xlsx.code).toBe(1)
    expect(xlsx.stderr).toMatch(/cannot tell the format from the extension "\.xlsx"; accepted are .*\.csv, \.tsv\)\. Rename the file or add --batch-format json\|jsonl\|csv\|tsv/)
  })
})
