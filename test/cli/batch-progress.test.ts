import {execFile} from 'node:child_process'
import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {BatchTally, batchLines} from '../../src/cli/batch-progress.js'
import {CARD, useScratchDir} from '../batch/support.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const exec = promisify(execFile)

describe('batch progress in a terminal', PROCESSES, () => {
  const scratch = useScratchDir()

  it('counts rows done, failed and skipped, and derives rows/min and the ETA from the rows finished so far', () => {
    let now = 0
    const tally = new BatchTally(() => now)
    tally.add({type: 'batch-start', composition: 'c', manifest: 'm', rows: 1000, toRender: 900, concurrency: 2, failFast: false})
    expect(tally.describe()).toBe('100/1,000 rows done · 0.0 rows/min · ETA …')
    for (let row = 100; row < 130; row++) tally.add({type: 'row', row, status: row === 105 ? 'failed' : 'completed', output: `${row}.mp4`})
    now = 60_000
    // 30 rows in a minute, 870 left: 29 minutes.
    expect(tally.describe()).toBe('129/1,000 rows done · 1 failed · 30.0 rows/min · ETA 29m 00s')
  })

  it('piped, prints the rate and ETA every 10 seconds among the row lines, and rows skipped together as one line', () => {
    let now = 0
    const lines: string[] = []
    const listen = batchLines((line) => lines.push(line), () => now)
    listen({type: 'batch-start', composition: 'c', manifest: '/m/manifest.json', rows: 100, toRender: 100, concurrency: 1, failFast: false})
    for (let row = 0; row < 20; row++) {
      now += 1000
      listen({type: 'row', row, status: 'completed', output: `/m/${row}.mp4`, renderMs: 1000})
    }
    listen({type: 'rows-skipped', count: 80, reason: 'not launched: the batch was interrupted'})
    const rates = lines.filter((line) => line.includes('rows/min'))
    expect(rates).toEqual(['10/100 rows done · 60.0 rows/min · ETA 1m 30s', '20/100 rows done · 60.0 rows/min · ETA 1m 20s'])
    expect(lines.at(-1)).toBe('80 rows skipped, not launched: the batch was interrupted')
  })

  it('--check-only says the rows are being checked, not rendered', () => {
    let now = 0
    const lines: string[] = []
    const listen = batchLines((line) => lines.push(line), () => now)
    listen({type: 'batch-start', composition: 'c', manifest: '/m/manifest.json', rows: 30, toRender: 30, concurrency: 2, failFast: false, checkOnly: true})
    for (let row = 0; row < 12; row++) {
      now += 1000
      listen({type: 'row', row, status: 'running', output: `/m/${row}.mp4`})
      listen({type: 'row', row, status: 'skipped', output: `/m/${row}.mp4`, skippedReason: 'checked only (--check-only): not rendered'})
    }
    expect(lines[0]).toMatch(/^Checking 30 of 30 rows \(--check-only: nothing is rendered\), 2 at a time; manifest /)
    expect(lines).toContainEqual(expect.stringMatching(/^row 0 \(.*0\.mp4\): checking$/))
    expect(lines.join('\n')).not.toMatch(/rendering|Rendering/)
    expect(lines).toContain('10/30 rows checked · 60.0 rows/min · ETA 20s')
  })

  it('shows the live line under a pseudo-terminal and ends with the summary', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), 'background\n#ff0000\n#00ff00\n#0000ff\n')
    const command = `stty cols 160 rows 40; ${process.execPath} ${join(REPO_ROOT, 'bin/run.js')} still ${CARD} --batch rows.csv -o 'out/{index}.png'`
    const {stdout} = await exec('script', ['-qfec', command, '/dev/null'], {cwd: dir, env: {...process.env, COLUMNS: '160'}, timeout: 120_000})
    expect(stdout).toContain('Rendering 3 of 3 rows, 1 at a time')
    expect(stdout).toMatch(/3\/3 rows done · [\d.]+ rows\/min · finishing|rows done · [\d.]+ rows\/min · ETA/)
    expect(stdout).toMatch(/3 completed, 0 failed, 0 skipped in [\d.]+ s \([\d.]+ rows\/min\); manifest out\/manifest\.json/)
    expect(stdout).not.toContain('row 0 (out/0.png): rendering')
  })
})
