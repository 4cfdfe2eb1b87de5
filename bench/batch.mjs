// Batch throughput: rows per minute for 8 short rows (640x360, 1 s at 30 fps, draft), rendered
// 1 and 2 rows at a time, end to end through renderBatch, against the same rows rendered by
// separate `engine render` invocations in the same run (the baseline a user without --batch has).
// Per-row overhead (process start, compile, browser launch, encoder start) dominates such rows.
// Run after `npm run build`: `node bench/batch.mjs`, or import { benchBatch } from bench/run.mjs.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {execFileSync} from 'node:child_process'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {measure} from './cpu-meter.mjs'
import {rowTemplate} from './batch-phases.mjs'

const dist = new URL('../dist/src/lib/', import.meta.url)
const load = (path) => import(new URL(path, dist).href)

// A title sliding in, a bar growing and a square turning: bench/batch-phases.mjs's row template.
const COMPOSITION = rowTemplate(640, 360, 1)

/**
 * Renders `rows` rows at each concurrency, with warm pooled browsers (what `engine render --batch`
 * does) and, as the baseline of the same run, with a browser launched per row.
 */
export async function benchBatch({rows = 8, concurrencies = ['auto', 1, 2], log = console.log} = {}) {
  // The formats (mp4 …) are plugins, registered the way the package entries register them.
  await load('builtin-plugins.js')
  const {renderBatch} = await load('batch/render-batch.js')
  const {renderComposition} = await load('render/render-composition.js')
  const {resolveRenderOptions} = await load('render/resolve-options.js')
  const {BrowserPool} = await load('browser/browser-pool.js')
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-batch-'))
  const results = []
  try {
    const composition = join(work, 'row.html')
    writeFileSync(composition, COMPOSITION)
    const batchFile = join(work, 'rows.json')
    const palette = ['#ff5a36', '#36c2ff', '#8bd450', '#f2c94c']
    writeFileSync(batchFile, JSON.stringify(Array.from({length: rows}, (_, index) => ({title: `Row ${index}`, accent: palette[index % palette.length]}))))
    log(`batch: ${rows} rows of 640x360, 1 s at 30 fps, draft; ${availableParallelism()} cores`)
    const cli = fileURLToPath(new URL('../bin/run.js', import.meta.url))
    const rowValues = JSON.parse(readFileSync(batchFile, 'utf8'))
    const separate = await measure(async () => {
      for (const [index, values] of rowValues.entries()) {
        execFileSync(process.execPath, [cli, 'render', composition, '--fps', '30', '--quality', 'draft', '--variables', JSON.stringify(values), '-o', join(work, 'separate', `${index}.mp4`), '--quiet'], {stdio: 'ignore'})
      }
    })
    const baseline = (rows * 60) / separate.seconds
    log(`separate \`engine render\` invocations: ${rows} rows in ${separate.seconds.toFixed(1)} s = ${baseline.toFixed(1)} rows/min, CPU ${(separate.utilisation * 100).toFixed(0)}%`)
    for (const concurrency of concurrencies) {
      for (const warm of [false, true]) {
        const options = resolveRenderOptions({fps: 30, quality: 'draft', batchConcurrency: concurrency, output: join(work, `c${concurrency}-${warm}`, '{index}.mp4')})
        const pool = warm ? new BrowserPool() : undefined
        const render = (request) => renderComposition({...request, pool})
        // Where a row's time goes: the stage timings of each row's done event.
        const stages = []
        const onEvent = (event) => event.type === 'done' && stages.push(event.timings)
        const run = await measure(() => renderBatch({composition, batchFile, options, render, cwd: work, onEvent}).finally(() => pool?.close()))
        const {counts} = run.result
        if (counts.completed !== rows) throw new Error(`batch at concurrency ${concurrency}: ${JSON.stringify(counts)}`)
        const result = {concurrency, warm, rows, seconds: run.seconds, rowsPerMinute: (rows * 60) / run.seconds, cpu: run.utilisation}
        results.push(result)
        log(
          `--batch-concurrency ${concurrency}, ${warm ? 'warm browsers' : 'browser per row'}: ${rows} rows in ${run.seconds.toFixed(1)} s = ${result.rowsPerMinute.toFixed(1)} rows/min, CPU ${(run.utilisation * 100).toFixed(0)}%`,
        )
        const mean = (key) => Math.round(stages.reduce((sum, timings) => sum + timings[key], 0) / Math.max(stages.length, 1))
        log(`  per row: compile ${mean('compileMs')} ms, capture ${mean('captureMs')} ms, assemble ${mean('assembleMs')} ms, total ${mean('totalMs')} ms (mean)`)
      }
      const [cold, warm] = results.slice(-2)
      log(`  warm / per-row launch: ${(warm.rowsPerMinute / cold.rowsPerMinute).toFixed(2)}x; warm / separate invocations: ${(warm.rowsPerMinute / baseline).toFixed(2)}x`)
    }
    return results
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchBatch()
