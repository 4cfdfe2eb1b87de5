// `node bench/batch-bookkeeping.mjs [rows ...]` (default 10000 100000): what a batch costs per row
// besides its renders. Runs renderBatch from dist/ on a CSV of the given size with a stand-in
// render that only writes a one-byte file, two rows at a time, each size in a fresh process, and
// prints rows/s over the first and last fifth and the process's peak RSS: the reading of the rows,
// the preflight, the spool, the manifest's journal and its compactions, the events. A per-row cost
// that grows with the batch shows as a last fifth slower than the first. Run after `npm run build`.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const template = new URL('./compositions/row-card.html', import.meta.url).pathname

async function child(size) {
  const dist = new URL('../dist/src/lib/', import.meta.url)
  await import(new URL('builtin-plugins.js', dist).href)
  const {renderBatch} = await import(new URL('batch/render-batch.js', dist).href)
  const {resolveRenderOptions} = await import(new URL('render/resolve-options.js', dist).href)
  const dir = mkdtempSync(join(tmpdir(), 'engine-bench-bookkeeping-'))
  try {
    const lines = ['name,accent,score']
    for (let index = 0; index < size; index++) lines.push(`"Customer ${index}, Inc.",#${(index % 0xffffff).toString(16).padStart(6, '0')},${index % 1000}`)
    writeFileSync(join(dir, 'rows.csv'), lines.join('\n') + '\n')
    const done = []
    let startedAt
    await renderBatch({
      composition: template,
      batchFile: join(dir, 'rows.csv'),
      options: resolveRenderOptions({format: 'png-sequence', output: join(dir, 'out/{index}.png'), batchConcurrency: 2}),
      cwd: dir,
      render: async (request) => {
        await writeFile(request.options.output, 'x')
        return {output: request.options.output, durationSeconds: 0, bytes: 1}
      },
      onEvent: (event) => {
        if (event.type === 'batch-start') startedAt = performance.now()
        else if (event.type === 'row' && event.status === 'completed') done.push(performance.now())
      },
    })
    const fifth = Math.floor(size / 5)
    const first = fifth / ((done[fifth - 1] - startedAt) / 1000)
    const last = fifth / ((done[size - 1] - done[size - fifth - 1]) / 1000)
    const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024
    process.stdout.write(JSON.stringify({size, first, last, peakMb}) + '\n')
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

if (process.argv[2] === '--child') await child(Number(process.argv[3]))
else {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
  const results = []
  for (const size of sizes.length > 0 ? sizes : [10000, 100000]) {
    const run = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', String(size)], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
    if (run.status !== 0) throw new Error(`the ${size}-row run failed`)
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1))
    results.push(result)
    console.log(
      `${String(size).padStart(7)} rows, stand-in render: first fifth ${result.first.toFixed(0)} rows/s, last fifth ${result.last.toFixed(0)} rows/s ` +
        `(last/first ${(result.last / result.first).toFixed(3)}), peak RSS ${result.peakMb.toFixed(0)} MB`,
    )
  }
  if (results.length > 1) console.log(`peak RSS ${results.at(-1).size} rows - ${results[0].size} rows: ${(results.at(-1).peakMb - results[0].peakMb).toFixed(0)} MB`)
}
