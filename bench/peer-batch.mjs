// Batch throughput against the best-known peer's batch mode and against another build of engine,
// on the same rows: personalised 1280x720 rows of 3 s (a GSAP timeline, a title, a name and an
// accent per row), each tool as a new process at its defaults with `--quality standard`
// (`engine render --batch --no-cache`, `hyperframes render --batch`), alternating in one run: the
// render cache is off, since every run renders the same rows and the peer has none. Prints rows/min,
// CPU a row and the ratios; the machine's load with each.
//
//   node bench/peer-batch.mjs [--rows 8] [--pairs 1] [--baseline <checkout>]
//
// The peer is the one /work/shared/corpus/compare.sh installs (hyperframes@0.8.170 in
// ~/.cache/engine-corpus-peer, or ENGINE_BENCH_PEER).
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {loadAverage} from './cpu-meter.mjs'
import {peerEnv, peerInstalled, PEER_COMMAND, PEER_DIR, timed} from './versus.mjs'

const CHECKOUT = fileURLToPath(new URL('..', import.meta.url))

const ROW = (global) => `<!doctype html>
<html data-composition-id="row" data-width="1280" data-height="720" data-duration="3"
  data-composition-variables='[
    {"id":"title","type":"string","label":"Title","default":"Welcome"},
    {"id":"name","type":"string","label":"Name","default":"Ada"},
    {"id":"accent","type":"color","label":"Accent","default":"#ff7a18"}
  ]'>
<head>
<meta charset="utf-8">
<style>
  html, body { margin: 0; width: 1280px; height: 720px; overflow: hidden; font-family: sans-serif; }
  body { background: radial-gradient(circle at 30% 20%, #24305e 0%, #0b1026 70%); color: #fff; }
  h1 { position: absolute; left: 80px; top: 160px; margin: 0; font-size: 72px; }
  .name { position: absolute; left: 84px; top: 270px; font-size: 48px; color: var(--accent); }
  .bar { position: absolute; left: 80px; bottom: 120px; height: 12px; width: 1120px; background: var(--accent); transform-origin: left; }
</style>
</head>
<body>
  <h1 id="title"></h1>
  <div class="name" id="name"></div>
  <div class="bar" id="bar"></div>
  <script src="gsap.min.js"></script>
  <script>
    const {title = 'Welcome', name = 'Ada', accent = '#ff7a18'} = window.${global}.getVariables()
    document.documentElement.style.setProperty('--accent', accent)
    document.getElementById('title').textContent = title
    document.getElementById('name').textContent = name
    const tl = gsap.timeline({paused: true})
    tl.from('#title', {x: -120, opacity: 0, duration: 0.8, ease: 'power3.out'}, 0)
      .from('#name', {y: 40, opacity: 0, duration: 0.6}, 0.5)
      .from('#bar', {scaleX: 0, duration: 2, ease: 'power1.inOut'}, 0.8)
    window.__timelines = window.__timelines || {}
    window.__timelines.row = tl
  </script>
</body>
</html>
`

const NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Dennis']
const ACCENTS = ['#ff7a18', '#36c2ff', '#8bd450', '#f2c94c']

/** A project folder holding the row composition for one tool (its runtime global), GSAP and the rows. */
function project(dir, global, rows) {
  mkdirSync(dir, {recursive: true})
  writeFileSync(join(dir, 'index.html'), ROW(global))
  copyFileSync(join(CHECKOUT, 'node_modules', 'gsap', 'dist', 'gsap.min.js'), join(dir, 'gsap.min.js'))
  const values = Array.from({length: rows}, (_, index) => ({title: 'Welcome aboard', name: NAMES[index % NAMES.length], accent: ACCENTS[index % ACCENTS.length]}))
  writeFileSync(join(dir, 'rows.json'), JSON.stringify(values))
  return dir
}

function engineBatch(checkout, label) {
  // Builds from before the render cache (issue 37) have no cache to turn off, and no --no-cache flag.
  const hasCache = existsSync(join(checkout, 'dist', 'src', 'lib', 'render-cache'))
  return {
    label,
    run: (dir, out) =>
      timed(process.execPath, [join(checkout, 'bin', 'run.js'), 'render', join(dir, 'index.html'), '--batch', join(dir, 'rows.json'), '--quality', 'standard', ...(hasCache ? ['--no-cache'] : []), '--quiet', '-o', join(out, '{index}.mp4')], {cwd: dir}),
  }
}

function peerBatch() {
  return {
    label: 'hyperframes 0.8.170',
    run: (dir, out) => timed(process.execPath, [PEER_COMMAND, 'render', '--batch', 'rows.json', '--quality', 'standard', '--quiet', '--output', join(out, '{index}.mp4')], {cwd: dir, env: peerEnv()}),
  }
}

export async function benchPeerBatch({rows = 8, pairs = 1, baseline, log = console.log} = {}) {
  const runners = [engineBatch(CHECKOUT, 'engine (this build)')]
  if (baseline) runners.push(engineBatch(baseline, `engine (${baseline})`))
  if (peerInstalled()) runners.push(peerBatch())
  else log(`the peer is not installed in ${PEER_DIR}: run /work/shared/corpus/compare.sh once (or set ENGINE_BENCH_PEER)`)
  const work = mkdtempSync(join(tmpdir(), 'engine-peer-batch-'))
  const results = runners.map(() => [])
  try {
    log(`batch against the peer: ${rows} personalised rows of 1280x720, 3 s at 30 fps, --quality standard, each tool a new process at its defaults; load average ${loadAverage().toFixed(1)}`)
    for (let pair = 0; pair < pairs; pair++) {
      for (const [index, runner] of runners.entries()) {
        const dir = project(join(work, `${index}-${pair}`), runner.label.startsWith('hyperframes') ? '__hyperframes' : '__engine', rows)
        const out = join(dir, 'out')
        const before = loadAverage()
        const run = await runner.run(dir, out)
        const written = readdirSync(out).filter((name) => name.endsWith('.mp4')).length
        if (written !== rows) throw new Error(`${runner.label} wrote ${written} of ${rows} outputs`)
        results[index].push(run)
        log(`  ${runner.label.padEnd(32)} ${((rows * 60) / run.seconds).toFixed(1).padStart(6)} rows/min (${run.seconds.toFixed(1)} s), ${(run.cpuSeconds / rows).toFixed(2)} s CPU a row; load ${before.toFixed(1)} -> ${loadAverage().toFixed(1)}`)
      }
    }
    const total = (list, key) => list.reduce((sum, run) => sum + run[key], 0)
    const [ours] = results
    for (const [index, runner] of runners.entries()) {
      if (index === 0) continue
      const speed = total(results[index], 'seconds') / total(ours, 'seconds')
      const cpu = total(results[index], 'cpuSeconds') / total(ours, 'cpuSeconds')
      log(`  this build against ${runner.label}: ${speed.toFixed(2)}x the rows/min, ${cpu.toFixed(2)}x less CPU a row (all pairs)`)
    }
    return results
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {values} = parseArgs({options: {rows: {type: 'string', default: '8'}, pairs: {type: 'string', default: '1'}, baseline: {type: 'string'}}})
  await benchPeerBatch({rows: Number(values.rows), pairs: Number(values.pairs), baseline: values.baseline})
}
