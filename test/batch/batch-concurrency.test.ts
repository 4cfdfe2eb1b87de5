import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {batchLayout} from '../../src/lib/batch/batch-concurrency.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const GIB = 1024 ** 3
const CARD = join(REPO_ROOT, 'test', 'batch', 'fixtures', 'card.html')

describe('--batch-concurrency auto', PROCESSES, () => {
  it('takes a number as it is; auto runs one-worker rows on the idle cores, bounded by memory and the rows', () => {
    expect(batchLayout(3, 10, {cores: 2, loadAverage: 0, freeMemoryBytes: 8 * GIB})).toEqual({rows: 3})
    expect(batchLayout('auto', 10, {cores: 2, loadAverage: 0.2, freeMemoryBytes: 8 * GIB})).toEqual({rows: 2, workersPerRow: 1})
    // Cores busy with other work, little memory, few rows, a big machine: each bound applies.
    expect(batchLayout('auto', 10, {cores: 8, loadAverage: 5, freeMemoryBytes: 8 * GIB}).rows).toBe(3)
    expect(batchLayout('auto', 10, {cores: 8, loadAverage: 0, freeMemoryBytes: 1.2 * GIB}).rows).toBe(2)
    expect(batchLayout('auto', 2, {cores: 8, loadAverage: 0, freeMemoryBytes: 8 * GIB}).rows).toBe(2)
    expect(batchLayout('auto', 100, {cores: 64, loadAverage: 0, freeMemoryBytes: 256 * GIB}).rows).toBe(8)
    expect(batchLayout('auto', 10, {cores: 2, loadAverage: 9, freeMemoryBytes: 0}).rows).toBe(1)
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
