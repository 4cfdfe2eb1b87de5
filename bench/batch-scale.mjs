// `npm run bench:batch-scale` (or `node bench/batch-scale.mjs [rows ...]`, default 1000 10000):
// renders a one-frame 320x180 still template as CSV batches of each size, one after the other in
// this run, through the CLI as a user would (`engine still --batch rows.csv --batch-concurrency
// auto --no-cache --json`: every size starts with the rows of the one before, which the render cache
// would hand back as copies), and prints for each size the rows/s over the first and the last fifth of its
// rows, their ratio, and the peak RSS of the engine's Node process. A batch whose bookkeeping grows
// with its size shows a last fifth slower than its first and a peak that grows with the rows.
// Run after `npm run build`.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

const repo = new URL('..', import.meta.url).pathname
const template = new URL('./compositions/row-card.html', import.meta.url).pathname
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)

/** Peak resident memory (VmHWM) of a running process, in MB; undefined once it has exited. */
function peakRssMb(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

function writeRows(path, count) {
  const lines = ['name,accent,score,customer_id']
  for (let index = 0; index < count; index++) {
    const accent = `#${((index * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6)}`
    lines.push(`"Customer ${index}, Inc.",${accent},${index % 1000},c-${index}`)
  }
  writeFileSync(path, lines.join('\n') + '\n')
}

export async function benchBatchScale(size) {
  const dir = mkdtempSync(join(tmpdir(), 'engine-bench-batch-'))
  try {
    writeRows(join(dir, 'rows.csv'), size)
    const args = [join(repo, 'bin/run.js'), 'still', template, '--batch', 'rows.csv', '-o', 'out/{customer_id}.png', '--batch-concurrency', 'auto', '--no-cache', '--json']
    const child = spawn(process.execPath, args, {cwd: dir, stdio: ['ignore', 'pipe', 'inherit']})
    let peak = 0
    const sample = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid) ?? 0)), 250)
    const ended = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
    let startedAt
    const done = []
    let concurrency = 0
    for await (const line of createInterface({input: child.stdout})) {
      const event = JSON.parse(line)
      if (event.type === 'batch-start') {
        startedAt = performance.now()
        concurrency = event.concurrency
      } else if (event.type === 'row' && event.status === 'completed') done.push(performance.now())
      else if (event.type === 'batch-done') peak = Math.max(peak, peakRssMb(child.pid) ?? 0)
    }
    clearInterval(sample)
    const code = await ended
    if (code !== 0 || done.length !== size) throw new Error(`the ${size}-row batch ended with exit code ${code} after ${done.length} rows`)
    const fifth = Math.floor(size / 5)
    const first = fifth / ((done[fifth - 1] - startedAt) / 1000)
    const last = fifth / ((done[size - 1] - done[size - fifth - 1]) / 1000)
    const result = {size, concurrency, seconds: (done[size - 1] - startedAt) / 1000, first, last, ratio: last / first, peakMb: peak}
    console.log(
      `${String(size).padStart(6)} rows (${concurrency} at a time): ${result.seconds.toFixed(1).padStart(7)} s, first fifth ${first.toFixed(2)} rows/s, last fifth ${last.toFixed(2)} rows/s ` +
        `(last/first ${result.ratio.toFixed(3)}), peak RSS of the engine process ${peak.toFixed(0)} MB`,
    )
    return result
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = []
  for (const size of sizes.length > 0 ? sizes : [1000, 10000]) results.push(await benchBatchScale(size))
  if (results.length > 1) {
    const [small, large] = [results[0], results.at(-1)]
    console.log(`peak RSS ${large.size} rows - ${small.size} rows: ${(large.peakMb - small.peakMb).toFixed(0)} MB; last/first fifth of the ${large.size}-row batch: ${large.ratio.toFixed(3)}`)
  }
}
