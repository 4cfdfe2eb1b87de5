// The check pass's cost against a row's render, for a small video template (640x360, 2 s at 30 fps,
// draft, one worker, warm pooled browsers as `engine render --batch` has): each row checked
// (checkTextFit) and rendered (renderComposition), in alternating order, and the same batch through
// renderBatch with and without the check pass (its default `--on-overflow warn`). Target: the check
// costs at most 15 % of a row's render. Run after `npm run build`: `node bench/text-check.mjs [rows]`.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

const dist = new URL('../dist/src/lib/', import.meta.url)
const load = (path) => import(new URL(path, dist).href)

const COMPOSITION = `<!doctype html>
<html data-composition-variables='[
  {"id": "name", "type": "string", "label": "Name", "default": "Ada"},
  {"id": "offer", "type": "string", "label": "Offer", "default": "10 % off"}
]'>
<head><style>
  html, body { margin: 0; }
  #stage { position: relative; width: 640px; height: 360px; overflow: hidden; background: #14161f; font-family: sans-serif; color: #fff; }
  .card { position: absolute; left: 40px; top: 60px; width: 360px; height: 72px; overflow: hidden; background: #262a3a; }
  #name { margin: 0; padding: 0 16px; font-size: 48px; line-height: 72px; white-space: nowrap; animation: in 0.6s ease-out both; }
  #offer { position: absolute; left: 40px; top: 170px; width: 400px; margin: 0; font-size: 32px; line-height: 40px; }
  #bar { position: absolute; left: 0; bottom: 0; height: 16px; width: 100%; background: #ff5a36; transform-origin: left; animation: grow 2s linear both; }
  @keyframes in { from { transform: translateX(-40px); opacity: 0; } to { transform: none; opacity: 1; } }
  @keyframes grow { from { transform: scaleX(0); } to { transform: scaleX(1); } }
</style></head>
<body>
  <div id="stage" data-composition-id="offer" data-width="640" data-height="360" data-duration="2">
    <div class="card" data-start="0" data-duration="2" data-track-index="1"><p id="name">Ada</p></div>
    <p id="offer" data-max-lines="2" data-start="0.5" data-duration="1.5" data-track-index="2">10 % off</p>
    <div id="bar"></div>
  </div>
  <script>
    var v = __engine.getVariables();
    document.getElementById('name').textContent = v.name;
    document.getElementById('offer').textContent = v.offer;
  </script>
</body>
</html>
`

const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Maximiliana Wolfeschlegelsteinhausen', 'Alan Turing', 'Linus Torvalds', 'Barbara Liskov', 'Edsger Dijkstra', 'Donald Knuth']

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export async function benchTextCheck({rows = 8, log = console.log} = {}) {
  await load('builtin-plugins.js')
  const {renderBatch} = await load('batch/render-batch.js')
  const {batchTextCheck} = await load('batch/row-text-check.js')
  const {checkTextFit} = await load('render/check-text-fit.js')
  const {renderComposition} = await load('render/render-composition.js')
  const {resolveRenderOptions} = await load('render/resolve-options.js')
  const {BrowserPool} = await load('browser/browser-pool.js')
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-text-check-'))
  const pool = new BrowserPool()
  try {
    const composition = join(work, 'offer.html')
    writeFileSync(composition, COMPOSITION)
    const values = Array.from({length: rows}, (_, index) => ({name: NAMES[index % NAMES.length], offer: `${10 + index} % off your next order`}))
    log(`text check: ${rows} rows of 640x360, 2 s at 30 fps, draft, 1 worker, warm browsers; ${availableParallelism()} cores`)
    const base = resolveRenderOptions({fps: 30, quality: 'draft', workers: 1})

    // Warm the pool and the code paths once.
    await checkTextFit({composition, options: base, variables: values[0], pool})
    await renderComposition({composition, options: {...base, output: join(work, 'warm.mp4')}, variables: values[0], pool})

    const checks = []
    const renders = []
    let findings = 0
    for (const [index, variables] of values.entries()) {
      const check = async () => {
        const started = performance.now()
        const result = await checkTextFit({composition, options: base, variables, pool})
        checks.push(performance.now() - started)
        findings += result.findings.length
      }
      const render = async () => {
        const started = performance.now()
        await renderComposition({composition, options: {...base, output: join(work, 'rows', `${index}.mp4`)}, variables, pool})
        renders.push(performance.now() - started)
      }
      if (index % 2 === 0) await check().then(render)
      else await render().then(check)
    }
    const sum = (list) => list.reduce((total, value) => total + value, 0)
    const share = sum(checks) / sum(renders)
    log(`per row: check ${Math.round(median(checks))} ms, render ${Math.round(median(renders))} ms (medians); check / render ${(share * 100).toFixed(1)} % (sums); ${findings} findings`)

    const batchFile = join(work, 'rows.json')
    writeFileSync(batchFile, JSON.stringify(values))
    const batchSeconds = {}
    for (const checked of [false, true, false, true]) {
      const options = resolveRenderOptions({fps: 30, quality: 'draft', output: join(work, `batch-${checked}-${Math.random()}`, '{index}.mp4')})
      const started = performance.now()
      const summary = await renderBatch({
        composition,
        batchFile,
        options,
        render: (request) => renderComposition({...request, pool}),
        ...(checked && {textCheck: batchTextCheck(options, pool)}),
        cwd: work,
      })
      if (summary.counts.completed !== rows) throw new Error(`batch: ${JSON.stringify(summary.counts)}`)
      ;(batchSeconds[checked] ??= []).push((performance.now() - started) / 1000)
    }
    const without = Math.min(...batchSeconds[false])
    const withCheck = Math.min(...batchSeconds[true])
    log(`batch: ${without.toFixed(1)} s without the check pass, ${withCheck.toFixed(1)} s with it (best of 2): +${(((withCheck - without) / without) * 100).toFixed(1)} %`)
    return {checkMs: median(checks), renderMs: median(renders), share, batchWithout: without, batchWith: withCheck}
  } finally {
    await pool.close()
    rmSync(work, {recursive: true, force: true})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchTextCheck({rows: Number(process.argv[2] ?? 8)})
