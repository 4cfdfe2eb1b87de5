import {execFileSync, spawn} from 'node:child_process'
import {stat, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {describe, expect, it} from 'vitest'
import {readManifest, type BatchEvent} from '../../src/lib/batch/index.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {CARD, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

// More rows than the three killed runs can complete (44 + 59 + 69 at most): each is killed
// mid-batch, and the last run still has rows to render.
const ROWS = 200

interface Run {
  /** Rows this run started rendering. */
  started: number[]
  signal: NodeJS.Signals | null
  code: number | null
  /** Rows that failed, with their error, so that a failure under load says what it was. */
  failures: string[]
}

/**
 * Runs `engine still --batch` and, when `killAfter` is given, SIGKILLs it that many completed rows
 * later plus a random few milliseconds, so the kill lands anywhere: mid-render, mid-journal-write,
 * mid-compaction.
 */
async function stillBatch(dir: string, resume: boolean, killAfter?: number): Promise<Run> {
  const args = [join(REPO_ROOT, 'bin/run.js'), 'still', CARD, '--batch', 'rows.csv', '-o', 'out/{index}.png', '--batch-concurrency', '2', '--json', ...(resume ? ['--resume'] : [])]
  const child = spawn(process.execPath, args, {cwd: dir, stdio: ['ignore', 'pipe', 'ignore']})
  const ended = new Promise<{signal: NodeJS.Signals | null; code: number | null}>((resolve) => child.on('exit', (code, signal) => resolve({code, signal})))
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000)
  const started: number[] = []
  const failures: string[] = []
  let completed = 0
  for await (const line of createInterface({input: child.stdout})) {
    const event = JSON.parse(line) as BatchEvent
    if (event.type !== 'row') continue
    if (event.status === 'running') started.push(event.row)
    if (event.status === 'failed') failures.push(`row ${event.row}: ${JSON.stringify(event)}`)
    if (event.status === 'completed' && ++completed === killAfter) {
      setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 120))
    }
  }
  clearTimeout(timer)
  return {started, failures, ...(await ended)}
}

/** Identity of each completed row's file: an output rendered again gets a new inode or time. */
async function completedFiles(dir: string): Promise<Map<number, string>> {
  const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
  const files = new Map<number, string>()
  for (const row of manifest.rows.filter((entry) => entry.status === 'completed')) {
    const info = await stat(join(dir, 'out', row.output))
    files.set(row.index, `${info.ino}:${info.mtimeMs}:${info.size}`)
  }
  return files
}

describe(`a ${ROWS}-row batch killed with SIGKILL at random moments, then --resume`, PROCESSES, () => {
  const scratch = useScratchDir()

  it('renders every row, never renders a completed row again, and ends with a manifest that agrees with the files', async () => {
    const dir = scratch()
    const colors = Array.from({length: ROWS}, (_, index) => `#${(index % 256).toString(16).padStart(2, '0')}8040`)
    await writeFile(join(dir, 'rows.csv'), ['background', ...colors].join('\n') + '\n')

    const kept = new Map<number, string>()
    let runs = 0
    for (const killAfter of [15 + Math.floor(Math.random() * 30), 20 + Math.floor(Math.random() * 40), 10 + Math.floor(Math.random() * 60)]) {
      const run = await stillBatch(dir, runs++ > 0, killAfter)
      expect(run.signal).toBe('SIGKILL')
      // What the manifest (and its journal) recorded as completed before a kill is never started again.
      expect(run.started.filter((index) => kept.has(index))).toEqual([])
      for (const [index, file] of await completedFiles(dir)) {
        if (kept.has(index)) expect(file, `row ${index} was rendered again`).toBe(kept.get(index))
        kept.set(index, file)
      }
    }
    expect(kept.size).toBeGreaterThan(40)

    const last = await stillBatch(dir, true)
    expect(last.code, last.failures.join('\n')).toBe(0)
    expect(last.started.filter((index) => kept.has(index))).toEqual([])
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.counts).toEqual({pending: 0, running: 0, completed: ROWS, failed: 0, skipped: 0, cached: 0})
    expect(manifest.finishedAt).toBeDefined()
    const files = await completedFiles(dir)
    for (const [index, file] of kept) expect(files.get(index), `row ${index}`).toBe(file)
    for (const row of manifest.rows) {
      const info = await stat(join(dir, 'out', row.output))
      expect(row.output).toBe(`${row.index}.png`)
      expect(info.size, `row ${row.index}`).toBe(row.bytes)
    }
    for (const index of [0, 150, ROWS - 1]) {
      const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', join(dir, `out/${index}.png`), '-vf', 'crop=w=4:h=4:x=40:y=40,scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'])
      expect(Math.abs(raw[0] - (index % 256)), `red of row ${index}`).toBeLessThanOrEqual(3)
    }
  }, 600_000)
})
