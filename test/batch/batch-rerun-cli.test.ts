import {spawn} from 'node:child_process'
import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {describe, expect, it} from 'vitest'
import {readManifest, type BatchEvent} from '../../src/lib/batch/index.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'
import {until} from '../support/until.js'
import {CARD, useScratchDir} from './support.js'

// `engine still --batch`: the cheapest real batch (one frame a row), run as a user runs it.
describe('a batch run again, and a batch stopped with SIGTERM', PROCESSES, () => {
  const scratch = useScratchDir()

  it('refuses to start over an earlier run\'s manifest (exit 2) naming --resume and --restart; each of those runs', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), 'title,customer_id\nAda,c-1\nBo,c-2\n')
    const args = ['still', CARD, '--batch', 'rows.csv', '-o', 'out/{customer_id}.png']
    const first = await runCli(args, {cwd: dir})
    expect(first.code).toBe(0)
    // Piped: one info line for the row data, one rate line at the end.
    expect(first.stderr).toMatch(/column "customer_id" is not a declared variable: kept as row data/)
    expect(first.stderr.match(/row data/g)).toHaveLength(1)
    expect(first.stdout).toMatch(/2 completed, 0 failed, 0 skipped in .* \(.* rows\/min\); manifest out\/manifest\.json; results out\/results\.csv/)
    const before = await readFile(join(dir, 'out/manifest.json'), 'utf8')

    const again = await runCli(args, {cwd: dir})
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/^error \[BATCH_EXISTS\]: .*out\/manifest\.json holds an earlier run of a batch \(started .*; 2 of 2 rows completed\)\. Run with --resume .* or with --restart/m)
    expect(await readFile(join(dir, 'out/manifest.json'), 'utf8')).toBe(before)

    const resumed = await runCli([...args, '--resume'], {cwd: dir})
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('Rendering 0 of 2 rows')
    const restarted = await runCli([...args, '--restart'], {cwd: dir})
    expect(restarted.code).toBe(0)
    expect(restarted.stdout).toContain('Rendering 2 of 2 rows')
    const both = await runCli([...args, '--resume', '--restart'], {cwd: dir})
    expect(both.code).not.toBe(0)
    expect(both.stderr).toMatch(/--restart.*cannot also be provided when using --resume|--resume.*--restart/)
  })

  it('SIGTERM ends a long batch promptly with one skip record for every row never started, and the sheet says so', async () => {
    const dir = scratch()
    const rows = 3000
    await writeFile(join(dir, 'rows.jsonl'), Array.from({length: rows}, (_, index) => JSON.stringify({title: `T${index}`, customer_id: `c-${index}`})).join('\n') + '\n')
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/run.js'), 'still', CARD, '--batch', 'rows.jsonl', '-o', 'out/{index}.png', '--json'], {cwd: dir, stdio: ['ignore', 'pipe', 'ignore']})
    let exitCode: number | null | undefined
    child.on('exit', (code) => (exitCode = code))
    const events: BatchEvent[] = []
    const reading = (async () => {
      for await (const line of createInterface({input: child.stdout})) events.push(JSON.parse(line) as BatchEvent)
    })()
    expect(await until(() => events.some((event) => event.type === 'row' && event.status === 'completed'), 90_000)).toBe(true)
    child.kill('SIGTERM')
    // A bound for a loaded machine, not a timing claim: before, 3,000 rows took one synced journal write each.
    expect(await until(() => exitCode !== undefined, 60_000, 50)).toBe(true)
    await reading
    expect(exitCode).toBe(143)
    const skippedEvents = events.filter((event) => event.type === 'rows-skipped')
    expect(skippedEvents).toHaveLength(1)
    expect(events.filter((event) => event.type === 'row' && event.status === 'skipped')).toEqual([])
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    const {count} = skippedEvents[0] as {count: number}
    expect(manifest.counts.skipped).toBe(count)
    expect(manifest.counts.completed + manifest.counts.failed + count).toBe(rows)
    expect(manifest.finishedAt).toBeDefined()
    const sheet = (await readFile(join(dir, 'out/results.csv'), 'utf8')).trim().split('\n')
    expect(sheet).toHaveLength(rows + 1)
    expect(sheet.at(-1)).toMatch(/^T2999,c-2999,skipped,2999\.png,.*not launched: the batch was interrupted$/)
  }, 180_000)
})
