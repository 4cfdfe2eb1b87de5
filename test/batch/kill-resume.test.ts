import {execFileSync, spawn} from 'node:child_process'
import {access, readdir, stat, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {describe, expect, it} from 'vitest'
import {readManifest, type BatchEvent} from '../../src/lib/batch/index.js'
import {SeededRandom} from '../../src/lib/runtime/page/seeded-random.js'
import {STAGING_PREFIX} from '../../src/lib/render-cache/cache-entries.js'
import {TEST_COMPACTION_INTERVAL_ENV} from '../../src/lib/batch/manifest-store.js'
import {FAULT_ENV, type FaultPoint} from '../../src/lib/trace/fault-point.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {CARD, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

// ENGINE_TEST_SEED=<n> runs the same kills again; the seed of every run is printed.
const SEED = Number(process.env.ENGINE_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31))
const random = new SeededRandom(SEED)
const between = (low: number, high: number) => low + Math.floor(random.nextFloat() * (high - low + 1))

// More rows than the killed runs can complete (at most about 10 + 8 + 8, plus rows in flight, before the compaction
// run, which needs some 0.45 x ROWS rows of journal to compact once the time rule is off): the last run still has rows to render.
const ROWS = 70

/** One way a run is stopped: SIGKILL at a random moment after some rows, or at a fault point inside a crash window. */
type Kill = {afterRows: number; delayMs: number} | {fault: FaultPoint; at: number}

/** The seed orders the killed runs and picks their moments; the compaction run comes last, as it needs the most rows. */
function kills(): Kill[] {
  const early: Kill[] = [
    {afterRows: between(3, 10), delayMs: between(0, 120)},
    {fault: 'row-output-renamed', at: between(2, 8)},
    {fault: 'cache-store', at: between(2, 8)},
  ]
  for (let at = early.length - 1; at > 0; at--) {
    const other = between(0, at)
    ;[early[at], early[other]] = [early[other], early[at]]
  }
  return [...early, {fault: 'compaction-rotated', at: 1}]
}

interface Run {
  /** Rows this run started rendering. */
  started: number[]
  signal: NodeJS.Signals | null
  code: number | null
  /** Rows that failed, with their error, so that a failure under load says what it was. */
  failures: string[]
  /** Killed by the test's own time bound, not as the run asked. */
  timedOut: boolean
}

/** Runs `engine still --batch` with the render cache in `dir`, stopped as `kill` says (not stopped without one). */
async function stillBatch(dir: string, resume: boolean, kill?: Kill): Promise<Run> {
  const args = [join(REPO_ROOT, 'bin/run.js'), 'still', CARD, '--batch', 'rows.csv', '-o', 'out/{index}.png', '--batch-concurrency', '2', '--json', ...(resume ? ['--resume'] : [])]
  // No 3 s between compactions: the byte rule alone decides, so the compaction run stops after as many rows on a fast machine as on a slow one.
  const env = {...process.env, ENGINE_RENDER_CACHE: join(dir, 'cache'), [TEST_COMPACTION_INTERVAL_ENV]: '0', ...(kill && 'fault' in kill && {[FAULT_ENV]: `${kill.fault}@${kill.at}`})}
  const child = spawn(process.execPath, args, {cwd: dir, env, stdio: ['ignore', 'pipe', 'ignore']})
  const ended = new Promise<{signal: NodeJS.Signals | null; code: number | null}>((resolve) => child.on('exit', (code, signal) => resolve({code, signal})))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    child.kill('SIGKILL')
  }, 150_000)
  const started: number[] = []
  const failures: string[] = []
  let completed = 0
  for await (const line of createInterface({input: child.stdout})) {
    const event = JSON.parse(line) as BatchEvent
    if (event.type !== 'row') continue
    if (event.status === 'running') started.push(event.row)
    if (event.status === 'failed') failures.push(`row ${event.row}: ${JSON.stringify(event)}`)
    if ((event.status === 'completed' || event.status === 'cached') && kill && 'afterRows' in kill && ++completed === kill.afterRows) {
      setTimeout(() => child.kill('SIGKILL'), kill.delayMs)
    }
  }
  clearTimeout(timer)
  return {started, failures, timedOut, ...(await ended)}
}

/** Identity of each finished row's file: an output rendered again gets a new inode or time. */
async function finishedFiles(dir: string): Promise<Map<number, string>> {
  const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
  const files = new Map<number, string>()
  for (const row of manifest.rows.filter((entry) => entry.status === 'completed' || entry.status === 'cached')) {
    const info = await stat(join(dir, 'out', row.output))
    files.set(row.index, `${info.ino}:${info.mtimeMs}:${info.size}`)
  }
  return files
}

const exists = (path: string) => access(path).then(() => true, () => false)

/** Whether the files show the process stopped inside `fault`'s window (so the point was reached, not skipped). */
async function windowLeft(dir: string, fault: FaultPoint): Promise<boolean> {
  if (fault === 'compaction-rotated') return exists(join(dir, 'out/manifest.journal.jsonl.old'))
  if (fault === 'cache-store') return (await readdir(join(dir, 'cache'))).some((name) => name.startsWith(STAGING_PREFIX))
  // row-output-renamed: a row the journal has running whose output is in place.
  const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
  const running = manifest.rows.filter((row) => row.status === 'running')
  return (await Promise.all(running.map((row) => exists(join(dir, 'out', row.output))))).some(Boolean)
}

describe(`a ${ROWS}-row batch killed at random moments and inside each crash window, then --resume (seed ${SEED})`, PROCESSES, () => {
  const scratch = useScratchDir()

  it('renders every row, never renders a finished row again, and ends with a manifest that agrees with the files', async () => {
    console.log(`kill-resume seed ${SEED}: ENGINE_TEST_SEED=${SEED} repeats these kills`)
    const dir = scratch()
    const colors = Array.from({length: ROWS}, (_, index) => `#${(index % 256).toString(16).padStart(2, '0')}8040`)
    await writeFile(join(dir, 'rows.csv'), ['background', ...colors].join('\n') + '\n')

    const kept = new Map<number, string>()
    let runs = 0
    for (const kill of kills()) {
      const run = await stillBatch(dir, runs++ > 0, kill)
      const how = JSON.stringify(kill)
      expect(run.signal, how).toBe('SIGKILL')
      expect(run.timedOut, how).toBe(false)
      if ('fault' in kill) expect(await windowLeft(dir, kill.fault), `what a crash at ${how} leaves`).toBe(true)
      // What the manifest (and its journals) recorded as finished before a kill is never started again.
      expect(run.started.filter((index) => kept.has(index)), how).toEqual([])
      const finished = await finishedFiles(dir)
      console.log(`kill-resume: ${how} stopped run ${runs} with ${finished.size} rows finished`)
      for (const [index, file] of finished) {
        if (kept.has(index)) expect(file, `row ${index} was rendered again (${how})`).toBe(kept.get(index))
        kept.set(index, file)
      }
    }
    expect(kept.size).toBeGreaterThan(10)

    const last = await stillBatch(dir, true)
    expect(last.code, last.failures.join('\n')).toBe(0)
    expect(last.started.filter((index) => kept.has(index))).toEqual([])
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows.map((row) => row.index)).toEqual(Array.from({length: ROWS}, (_, index) => index))
    expect(manifest.counts.completed + manifest.counts.cached).toBe(ROWS)
    expect(manifest.finishedAt).toBeDefined()
    const files = await finishedFiles(dir)
    for (const [index, file] of kept) expect(files.get(index), `row ${index}`).toBe(file)
    for (const row of manifest.rows) {
      const info = await stat(join(dir, 'out', row.output))
      expect(row.output).toBe(`${row.index}.png`)
      expect(info.size, `row ${row.index}`).toBe(row.bytes)
    }
    // Nothing but outputs and the manifest: no journal, no file left half-written beside an output.
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['manifest.json', 'results.csv', ...manifest.rows.map((row) => row.output)].sort())
    for (const index of [0, 37, ROWS - 1]) {
      const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', join(dir, `out/${index}.png`), '-vf', 'crop=w=4:h=4:x=40:y=40,scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'])
      expect(Math.abs(raw[0] - (index % 256)), `red of row ${index}`).toBeLessThanOrEqual(3)
    }
  }, 600_000)
})
