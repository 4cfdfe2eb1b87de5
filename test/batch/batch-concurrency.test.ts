import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {cpus, tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {batchLayout} from '../../src/lib/batch/batch-concurrency.js'
import {busyCores, busyCoresBetween} from '../../src/lib/batch/busy-cores.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const GIB = 1024 ** 3
const CARD = join(REPO_ROOT, 'test', 'batch', 'fixtures', 'card.html')

describe('--batch-concurrency auto', PROCESSES, () => {
  it('takes a number as it is; auto runs one-worker rows on the idle cores, bounded by memory and the rows', () => {
    expect(batchLayout(3, 10, {cores: 2, busyCores: 0, freeMemoryBytes: 8 * GIB})).toEqual({rows: 3})
    expect(batchLayout('auto', 10, {cores: 2, busyCores: 0.2, freeMemoryBytes: 8 * GIB})).toEqual({rows: 2, workersPerRow: 1})
    // Cores busy with other work, little memory, few rows, a big machine: each bound applies.
    expect(batchLayout('auto', 10, {cores: 8, busyCores: 5, freeMemoryBytes: 8 * GIB}).rows).toBe(3)
    expect(batchLayout('auto', 10, {cores: 8, busyCores: 0, freeMemoryBytes: 1.2 * GIB}).rows).toBe(2)
    expect(batchLayout('auto', 2, {cores: 8, busyCores: 0, freeMemoryBytes: 8 * GIB}).rows).toBe(2)
    expect(batchLayout('auto', 100, {cores: 64, busyCores: 0, freeMemoryBytes: 256 * GIB}).rows).toBe(8)
    expect(batchLayout('auto', 10, {cores: 2, busyCores: 9, freeMemoryBytes: 0}).rows).toBe(1)
  })

  it('counts the cores busy with other work now: the machine\'s busy share, less the engine\'s own use', async () => {
    const before = {busy: 1_000, total: 10_000}
    // 250 ms on 2 cores: 500 ms of CPU time, 300 of it busy, 100 of those the engine's own.
    expect(busyCoresBetween(before, {busy: 1_300, total: 10_500}, 2, 100, 250)).toBeCloseTo(0.8)
    // The engine was the only thing running: nothing else is busy.
    expect(busyCoresBetween(before, {busy: 1_250, total: 10_500}, 2, 250, 250)).toBe(0)
    expect(busyCoresBetween(before, {busy: 1_500, total: 10_500}, 2, 0, 250)).toBe(2)
    // No tick elapsed (a coarse clock): nothing is known to be busy.
    expect(busyCoresBetween(before, before, 2, 0, 250)).toBe(0)
    const now = await busyCores(50)
    expect(now).toBeGreaterThanOrEqual(0)
    expect(now).toBeLessThanOrEqual(cpus().length)
  })

  describe('through the CLI', () => {
    let dir: string
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'engine-batch-auto-'))
      await writeFile(join(dir, 'rows.json'), JSON.stringify([{title: 'Ada'}, {title: 'Bo'}, {title: 'Cy'}]))
    })
    afterAll(async () => {
      if (dir) await rm(dir, {recursive: true, force: true})
    })

    it('renders every row, reporting how many it ran at once', async () => {
      const result = await runCli(['render', CARD, '--batch', join(dir, 'rows.json'), '--batch-concurrency', 'auto', '--json', '-o', join(dir, 'out', '{index}.mp4')])
      expect(result.code, result.stderr).toBe(0)
      const events = result.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as {type: string; concurrency?: number; counts?: {completed: number}})
      const start = events.find((event) => event.type === 'batch-start')!
      expect(start.concurrency).toBeGreaterThanOrEqual(1)
      expect(start.concurrency).toBeLessThanOrEqual(3)
      expect(events.find((event) => event.type === 'batch-done')?.counts?.completed).toBe(3)
    })

    it('refuses a value that is neither a count nor auto, naming the flag', async () => {
      const result = await runCli(['render', CARD, '--batch', join(dir, 'rows.json'), '--batch-concurrency', 'many', '-o', join(dir, 'bad', '{index}.mp4')])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('--batch-concurrency: "many" is invalid (must be a whole number of rows, 1 or more, or auto)')
    })
  })
})
