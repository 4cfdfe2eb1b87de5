import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {describe, expect, it} from 'vitest'
import {readManifest, type BatchEvent} from '../../src/lib/batch/index.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

const OVERFLOW = join(import.meta.dirname, 'fixtures/overflow.html')
const LONG_NAME = 'Maximiliana Wolfeschlegelsteinhausen'

describe('the check pass from the command line', PROCESSES, () => {
  const scratch = useScratchDir('engine-check-cli-', 'test')

  it('a single render with --on-overflow fail stops before rendering, naming the element, variable and pixels', async () => {
    const dir = scratch()
    const result = await runCli(['render', OVERFLOW, '--on-overflow', 'fail', '--variables', JSON.stringify({name: LONG_NAME}), '--fps', '10', '--scale', '0.5', '-o', 'out.mp4'], {cwd: dir})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('TEXT_OVERFLOW')
    expect(result.stderr).toMatch(/#name \(variable "name"\) is cut off by #stage > div\.card: [\d.]+ px past its edge at 0 s/)
    expect(await readdir(dir)).toEqual([])
  })

  it('--on-overflow skip is refused without --batch', async () => {
    const result = await runCli(['render', OVERFLOW, '--on-overflow', 'skip', '-o', join(scratch(), 'out.mp4')])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('error [INVALID_FLAG]: --on-overflow skip only applies to a batch')
  })

  it('a single render with --check-only reports the findings as JSON and renders nothing', async () => {
    const dir = scratch()
    const result = await runCli(['render', OVERFLOW, '--check-only', '--json', '--variables', JSON.stringify({name: LONG_NAME}), '-o', 'out.mp4'], {cwd: dir})
    expect(result.code).toBe(0)
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as {type: string; code?: string; findings?: unknown[]})
    expect(events.filter((event) => event.type === 'warning').map((event) => event.code)).toEqual(['text-overflow'])
    expect(events.at(-1)).toMatchObject({type: 'check-done', findings: [expect.objectContaining({element: '#name', variable: 'name'})]})
    expect(await readdir(dir)).toEqual([])
  })

  it('after a SIGKILL during a row\'s check pass, --resume renders every row once with its findings', async () => {
    const dir = scratch()
    const names = ['Ada', LONG_NAME, 'Grace', `${LONG_NAME} II`, 'Alan', 'Linus']
    await writeFile(join(dir, 'rows.csv'), ['name', ...names].join('\n') + '\n')
    const args = [join(REPO_ROOT, 'bin/run.js'), 'still', OVERFLOW, '--batch', 'rows.csv', '-o', 'out/{index}.png', '--scale', '0.5', '--json']
    const child = spawn(process.execPath, args, {cwd: dir, stdio: ['ignore', 'pipe', 'ignore']})
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    const bound = setTimeout(() => child.kill('SIGKILL'), 90_000)
    let killedAt: number | undefined
    for await (const line of createInterface({input: child.stdout})) {
      const event = JSON.parse(line) as BatchEvent
      // A row's check pass starts as soon as it is marked running.
      if (event.type === 'row' && event.status === 'running' && event.row === 3 && killedAt === undefined) {
        killedAt = event.row
        child.kill('SIGKILL')
      }
    }
    clearTimeout(bound)
    expect(await exited).toBe('SIGKILL')
    expect(killedAt).toBe(3)
    const before = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(before.rows.slice(0, 3).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    expect(before.rows[3].status).not.toBe('completed')

    const resumed = await runCli(['still', OVERFLOW, '--batch', 'rows.csv', '-o', 'out/{index}.png', '--scale', '0.5', '--resume', '--json'], {cwd: dir})
    expect(resumed.code, resumed.stderr).toBe(0)
    const started = resumed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as BatchEvent)
      .flatMap((event) => (event.type === 'row' && event.status === 'running' ? [event.row] : []))
    expect(started).toEqual([3, 4, 5])
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows.map((row) => row.status)).toEqual(Array(6).fill('completed'))
    expect(manifest.rows.map((row) => (row.warnings ?? []).map((warning) => `${warning.code} ${(warning.detail as {element: string}).element}`))).toEqual([
      [],
      ['text-overflow #name'],
      [],
      ['text-overflow #name'],
      [],
      [],
    ])
    for (const index of names.keys()) expect(existsSync(join(dir, `out/${index}.png`))).toBe(true)
  })

  it('still --batch --check-only writes the manifest and no image', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), `name\nAda\n${LONG_NAME}\n`)
    const result = await runCli(['still', OVERFLOW, '--batch', 'rows.csv', '-o', 'out/{index}.png', '--check-only', '--on-overflow', 'fail'], {cwd: dir})
    // --on-overflow fail: the long name's row fails, so the batch exits 1.
    expect(result.code).toBe(1)
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['manifest.json', 'results.csv'])
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows.map((row) => [row.status, row.error?.code])).toEqual([
      ['skipped', undefined],
      ['failed', 'TEXT_OVERFLOW'],
    ])
  })
})
