// Where a batch row's time goes: every row of a batch split into its phases (launch or reuse of a
// browser, page open, readiness, first frame, capture, encode tail, assembly, write, bookkeeping,
// idle), with rows/min and CPU a row, for a short and a longer row at 720p and 1080p, through
// renderBatch with warm pooled browsers (what `engine render --batch` does). With `--baseline
// <checkout>` the same batches also run on another build (its dist/), alternating A B A B in one
// run, with the outputs compared byte for byte: on a shared machine only those ratios mean much.
//
//   node bench/batch-phases.mjs [--quick] [--rows N] [--pairs N] [--concurrency auto|N] [--baseline <checkout>]
//   node bench/batch-phases.mjs --output-check     the output check alone: ffprobe against the sample table
//
// `--quick` (or ENGINE_BENCH_QUICK=1): 320x180 rows of 1 and 2 s, for iterating. Run after
// `npm run build`; `npm run bench` runs it with its defaults.
import {AsyncLocalStorage} from 'node:async_hooks'
import {subscribe, unsubscribe} from 'node:diagnostics_channel'
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'
import {pathToFileURL} from 'node:url'
import {loadAverage, measure} from './cpu-meter.mjs'

const HERE = new URL('..', import.meta.url).pathname

/** A row template of `width`x`height` and `seconds`: a title that slides in, a growing bar and a spinning square (every frame changes). */
export function rowTemplate(width, height, seconds) {
  const unit = height / 360
  return `<!doctype html>
<html data-composition-variables='[
  {"id": "title", "type": "string", "label": "Title", "default": "Row"},
  {"id": "accent", "type": "color", "label": "Accent", "default": "#ff5a36"}
]'>
<head><style>
  html, body { margin: 0; }
  #stage { position: relative; width: ${width}px; height: ${height}px; overflow: hidden; background: linear-gradient(135deg, #14161f, #2a2f45); font-family: sans-serif; }
  #title { position: absolute; left: ${40 * unit}px; top: ${110 * unit}px; margin: 0; font-size: ${56 * unit}px; color: #fff; animation: in 0.6s ease-out both; }
  #spin { position: absolute; right: ${60 * unit}px; top: ${60 * unit}px; width: ${60 * unit}px; height: ${60 * unit}px; background: #ccd; animation: spin 1s linear infinite; }
  #bar { position: absolute; left: 0; bottom: 0; height: ${16 * unit}px; width: 100%; transform-origin: left; animation: grow ${seconds}s linear both; }
  @keyframes in { from { transform: translateX(-40px); opacity: 0; } to { transform: none; opacity: 1; } }
  @keyframes grow { from { transform: scaleX(0); } to { transform: scaleX(1); } }
  @keyframes spin { to { transform: rotate(360deg); } }
</style></head>
<body>
  <div id="stage" data-composition-id="row" data-width="${width}" data-height="${height}" data-duration="${seconds}">
    <h1 id="title" data-start="0" data-duration="${seconds}" data-track-index="1">Row</h1>
    <div id="spin" data-start="0" data-duration="${seconds}" data-track-index="2"></div>
    <div id="bar" data-start="0" data-duration="${seconds}" data-track-index="0"></div>
  </div>
  <script>
    var v = __engine.getVariables();
    document.getElementById('title').textContent = v.title;
    document.getElementById('bar').style.background = v.accent;
  </script>
</body>
</html>
`
}

/** The phases, in the order a row goes through them. */
export const PHASES = ['prepare', 'launch', 'page open', 'readiness', 'first frame', 'capture', 'encode tail', 'assembly', 'write', 'bookkeeping', 'idle']

/**
 * A build's batch renderer: its dist/ modules (this checkout's, or another's for a baseline). Each
 * build registers its own formats in its own module instances, so two builds run side by side.
 */
export async function loadBuild(checkout = HERE) {
  const dist = pathToFileURL(join(resolve(checkout), 'dist', 'src', 'lib') + '/')
  const load = (path) => import(new URL(path, dist).href)
  await load('builtin-plugins.js')
  const [{renderBatch}, {renderComposition}, {resolveRenderOptions}, {BrowserPool}] = await Promise.all(
    ['batch/render-batch.js', 'render/render-composition.js', 'render/resolve-options.js', 'browser/browser-pool.js'].map(load),
  )
  return {checkout: resolve(checkout), renderBatch, renderComposition, resolveRenderOptions, BrowserPool}
}

/**
 * Runs one batch of `rows` rows of `composition` on `build` and returns its wall time, CPU and the
 * phases of each row from the engine's timeline (see src/lib/trace/timeline.ts): spans published
 * inside a row's render are told apart by an AsyncLocalStorage around it.
 */
export async function runBatchPhases(build, {composition, rows, concurrency, work, label, extraOptions = {}}) {
  const batchFile = join(work, `rows-${rows}.json`)
  const palette = ['#ff5a36', '#36c2ff', '#8bd450', '#f2c94c']
  writeFileSync(batchFile, JSON.stringify(Array.from({length: rows}, (_, index) => ({title: `Row ${index}`, accent: palette[index % palette.length]}))))
  const outDir = join(work, label)
  rmSync(outDir, {recursive: true, force: true})
  const options = build.resolveRenderOptions({quality: 'standard', batchConcurrency: concurrency, output: join(outDir, '{index}.mp4'), cache: false, ...extraOptions})
  const pool = new build.BrowserPool()
  const rowOf = new AsyncLocalStorage()
  const perRow = new Map()
  const bookkeeping = []
  const onSpan = (span) => {
    const row = rowOf.getStore()
    if (span.stage === 'row-bookkeeping') bookkeeping.push(span.end - span.start)
    if (row === undefined) return
    perRow.get(row).spans.push(span)
  }
  let nextRow = 0
  const render = (request) => {
    const row = nextRow++
    const record = {started: performance.now(), ended: 0, spans: []}
    perRow.set(row, record)
    return rowOf.run(row, () =>
      build.renderComposition({...request, pool, cache: false}).finally(() => {
        record.ended = performance.now()
      }),
    )
  }
  subscribe('engine:timeline', onSpan)
  let run
  try {
    run = await measure(() => build.renderBatch({composition, batchFile, options, render, cwd: work}).finally(() => pool.close()))
  } finally {
    unsubscribe('engine:timeline', onSpan)
  }
  const {counts} = run.result
  if (counts.completed !== rows) throw new Error(`${label}: ${JSON.stringify(counts)}`)
  const outputs = Array.from({length: rows}, (_, index) => createHash('sha256').update(readFileSync(join(outDir, `${index}.mp4`))).digest('hex'))
  const slots = typeof concurrency === 'number' ? concurrency : availableParallelism()
  return {label, rows, seconds: run.seconds, cpuSeconds: run.cpuSeconds, utilisation: run.utilisation, outputs, phases: meanPhases([...perRow.values()], bookkeeping, (run.seconds * 1000 * slots) / rows)}
}

/** Mean milliseconds a row spent in each phase; `slotMs` is the batch's wall time times its rows at once, per row. */
function meanPhases(records, bookkeeping, slotMs) {
  const sum = Object.fromEntries(PHASES.map((phase) => [phase, 0]))
  for (const {started, ended, spans} of records) {
    const of = (stage) => spans.filter((span) => span.stage === stage)
    const total = (stage) => of(stage).reduce((ms, span) => ms + span.end - span.start, 0)
    const launches = of('browser-launch')
    const loads = of('page-load')
    const captures = of('capture').sort((a, b) => a.end - b.end)
    const assembles = of('assemble')
    const checks = of('output-check')
    const firstCapture = captures[0]?.end ?? ended
    const lastCapture = captures.at(-1)?.end ?? ended
    const assembleStart = assembles[0]?.start ?? lastCapture
    const checkEnd = checks.at(-1)?.end ?? ended
    sum.prepare += (launches[0]?.start ?? started) - started
    sum.launch += total('browser-launch')
    sum['page open'] += total('page-load') - total('page-ready')
    sum.readiness += total('page-ready')
    sum['first frame'] += firstCapture - (loads.at(-1)?.end ?? firstCapture)
    sum.capture += lastCapture - firstCapture
    sum['encode tail'] += assembleStart - lastCapture
    sum.assembly += total('assemble')
    sum.write += total('output-check') + (ended - checkEnd)
  }
  const rows = Math.max(records.length, 1)
  const mean = Object.fromEntries(Object.entries(sum).map(([phase, ms]) => [phase, ms / rows]))
  // The browser's idle time between rows: one row's last capture to the next row's first.
  const captureSpans = records
    .map(({spans}) => spans.filter((span) => span.stage === 'capture'))
    .filter((spans) => spans.length > 0)
    .map((spans) => ({first: Math.min(...spans.map((span) => span.start)), last: Math.max(...spans.map((span) => span.end))}))
    .sort((a, b) => a.first - b.first)
  const gaps = captureSpans.slice(1).map((row, index) => row.first - captureSpans[index].last)
  mean.gap = gaps.length > 0 ? gaps.reduce((a, b) => a + b, 0) / gaps.length : 0
  mean.missing = ['page-ready', 'assemble', 'output-check'].filter((stage) => !records.some(({spans}) => spans.some((span) => span.stage === stage)))
  mean.bookkeeping = bookkeeping.reduce((a, b) => a + b, 0) / rows
  const busy = PHASES.filter((phase) => phase !== 'idle').reduce((ms, phase) => ms + mean[phase], 0)
  // Negative when rows overlap (the next row starts while the previous one assembles).
  mean.idle = slotMs - busy
  return mean
}

function formatPhases(phases) {
  const missing = phases.missing.length > 0 ? ` (this build publishes no ${phases.missing.join(', ')} spans: those phases count elsewhere)` : ''
  return `${PHASES.map((phase) => `${phase} ${Math.round(phases[phase])}`).join(', ')}; capture gap between rows ${Math.round(phases.gap)}${missing}`
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

/**
 * The breakdown for each size and length, and with `baseline` (a checkout) the same batches on it
 * alternating with this build's, outputs compared.
 */
export async function benchBatchPhases({quick = process.env.ENGINE_BENCH_QUICK === '1', rows, pairs = 1, concurrency = 1, baseline, log = console.log} = {}) {
  const cases = quick
    ? [
        {name: '320x180 1 s', width: 320, height: 180, seconds: 1},
        {name: '320x180 2 s', width: 320, height: 180, seconds: 2},
      ]
    : [
        {name: '720p 2 s', width: 1280, height: 720, seconds: 2},
        {name: '720p 10 s', width: 1280, height: 720, seconds: 10},
        {name: '1080p 2 s', width: 1920, height: 1080, seconds: 2},
        {name: '1080p 10 s', width: 1920, height: 1080, seconds: 10},
      ]
  const rowCount = rows ?? (quick ? 4 : 4)
  const builds = [await loadBuild()]
  if (baseline) builds.push(await loadBuild(baseline))
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-phases-'))
  const results = []
  try {
    log(`batch phases: ${rowCount} rows a batch at --quality standard, --batch-concurrency ${concurrency}, warm pooled browsers; ${availableParallelism()} cores, load average ${loadAverage().toFixed(1)}`)
    log(`  phases are mean ms a row: prepare (compile, plan, tools) · launch or reuse · page open · readiness · first frame · capture · encode tail · assembly · write (count, rename) · bookkeeping (manifest, hash) · idle (negative: rows overlapped)`)
    for (const testCase of cases) {
      const composition = join(work, `${testCase.width}x${testCase.height}-${testCase.seconds}.html`)
      writeFileSync(composition, rowTemplate(testCase.width, testCase.height, testCase.seconds))
      const runs = builds.map(() => [])
      for (let pair = 0; pair < pairs; pair++) {
        for (const [index, build] of builds.entries()) {
          const label = `${index === 0 ? 'this' : 'baseline'}-${testCase.width}-${testCase.seconds}-${pair}`
          const run = await runBatchPhases(build, {composition, rows: rowCount, concurrency, work, label})
          runs[index].push(run)
          log(
            `${testCase.name.padEnd(12)} ${index === 0 ? 'this build' : 'baseline  '}: ${((rowCount * 60) / run.seconds).toFixed(1).padStart(6)} rows/min, ${(run.cpuSeconds / rowCount).toFixed(2)} s CPU a row, load ${loadAverage().toFixed(1)}\n    ${formatPhases(run.phases)}`,
          )
        }
      }
      const rate = (list) => median(list.map((run) => (rowCount * 60) / run.seconds))
      const result = {case: testCase.name, rowsPerMinute: rate(runs[0]), cpuPerRow: median(runs[0].map((run) => run.cpuSeconds / rowCount)), gap: median(runs[0].map((run) => run.phases.gap))}
      if (baseline) {
        result.baselineRowsPerMinute = rate(runs[1])
        result.identical = runs[0].every((run, pair) => run.outputs.every((sha, row) => sha === runs[1][pair].outputs[row]))
        result.baselineGap = median(runs[1].map((run) => run.phases.gap))
        log(
          `  ${testCase.name}: this build / baseline ${(result.rowsPerMinute / result.baselineRowsPerMinute).toFixed(2)}x rows/min (medians of ${pairs}), CPU a row ${(result.cpuPerRow / median(runs[1].map((run) => run.cpuSeconds / rowCount))).toFixed(2)}x, capture gap between rows ${Math.round(result.gap)} against ${Math.round(result.baselineGap)} ms; outputs ${result.identical ? 'byte-identical' : 'DIFFERENT'}`,
        )
      }
      results.push(result)
    }
    return results
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

/**
 * The output check a row ends with, alone: an ffprobe process counting the packets (what every row
 * paid before) against the MP4 sample table read in this process, alternating, `calls` each.
 */
export async function benchOutputCheck({calls = 20, log = console.log} = {}) {
  const dist = pathToFileURL(join(HERE, 'dist', 'src', 'lib') + '/')
  const [{probeFrameCount}, {isoVideoSampleCount}, {resolveFfmpeg}] = await Promise.all(
    ['encode/probe-frame-count.js', 'encode/iso-sample-count.js', 'encode/resolve-ffmpeg.js'].map((path) => import(new URL(path, dist).href)),
  )
  const {ffmpegPath, ffprobePath} = await resolveFfmpeg()
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-check-'))
  try {
    const file = join(work, 'row.mp4')
    execFileSync(ffmpegPath, ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30:d=10', '-c:v', 'libx264', '-preset', 'ultrafast', '-movflags', '+faststart', file])
    const times = {probe: [], table: []}
    let cpu = {probe: 0, table: 0}
    for (let call = 0; call < calls; call++) {
      for (const [name, count] of [['probe', () => probeFrameCount(ffprobePath, file)], ['table', () => isoVideoSampleCount(file)]]) {
        const run = await measure(count)
        if (run.result !== 300) throw new Error(`${name} counted ${run.result} frames, expected 300`)
        times[name].push(run.seconds * 1000)
        cpu[name] += run.cpuSeconds * 1000
      }
    }
    log(
      `output check of a 10 s 720p mp4, ${calls} calls each, alternating: ffprobe ${median(times.probe).toFixed(1)} ms (median), ${(cpu.probe / calls).toFixed(1)} ms CPU; sample table ${median(times.table).toFixed(2)} ms, ${(cpu.table / calls).toFixed(2)} ms CPU; load ${loadAverage().toFixed(1)}`,
    )
    return {probeMs: median(times.probe), tableMs: median(times.table)}
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {values} = parseArgs({options: {quick: {type: 'boolean'}, rows: {type: 'string'}, pairs: {type: 'string', default: '1'}, concurrency: {type: 'string', default: '1'}, baseline: {type: 'string'}, 'output-check': {type: 'boolean'}}})
  if (values['output-check']) {
    await benchOutputCheck()
    process.exit(0)
  }
  await benchBatchPhases({
    quick: values.quick || process.env.ENGINE_BENCH_QUICK === '1',
    rows: values.rows ? Number(values.rows) : undefined,
    pairs: Number(values.pairs),
    concurrency: values.concurrency === 'auto' ? 'auto' : Number(values.concurrency),
    baseline: values.baseline,
  })
}
