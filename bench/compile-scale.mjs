// `node bench/compile-scale.mjs` (after `npm run build`): what compiling costs per unit of the
// user's work at two sizes about 100x apart: per element of a flat page (1,000 and 90,000
// elements; the budget is 100,000), per element nested 500 deep, per sub-composition instance (10
// and 1,000, the budget), and per rule of a sub-composition's stylesheet (1,000 and 100,000). Each
// size compiles in a fresh process: CPU is the median of 3 compiles there, memory the process's
// peak RSS above what it had before compiling. Compare the two sizes of one row as ratios (no
// higher per unit means linear).
import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024

// In the child: compile the file three times, print the median CPU and the peak RSS it added.
if (process.argv[2] === '--child') {
  const {compileComposition} = await import(new URL('../dist/src/lib/compose/compile-composition.js', import.meta.url).href)
  const baseline = peakRssMb()
  const samples = []
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage()
    await compileComposition(process.argv[3])
    const used = process.cpuUsage(before)
    samples.push((used.user + used.system) / 1000)
  }
  console.log(JSON.stringify({ms: samples.sort((a, b) => a - b)[1], rssMb: peakRssMb() - baseline}))
  process.exit(0)
}
const work = mkdtempSync(join(tmpdir(), 'engine-bench-compile-'))
const page = (body, head = '') => `<!doctype html><html><head>${head}</head><body><div data-composition-id="c" data-width="320" data-height="180" data-duration="1">${body}</div></body></html>`

function project(name, files) {
  const dir = join(work, name)
  mkdirSync(dir, {recursive: true})
  for (const [file, html] of Object.entries(files)) writeFileSync(join(dir, file), html)
  return join(dir, 'index.html')
}

function measure(file) {
  // The compile's own modules load before the baseline: only the compile's memory counts.
  const out = execFileSync(process.execPath, ['--import', new URL('../dist/src/lib/compose/compile-composition.js', import.meta.url).href, new URL(import.meta.url).pathname, '--child', file], {encoding: 'utf8'})
  return JSON.parse(out.trim().split('\n').at(-1))
}

const cases = [
  ['flat elements', (n) => ({'index.html': page('<i></i>'.repeat(n))}), [1_000, 90_000]],
  ['nested elements (500 deep, repeated)', (n) => ({'index.html': page(('<b>'.repeat(500) + '</b>'.repeat(500)).repeat(n / 500))}), [1_000, 90_000]],
  ['sub-composition instances', (n) => ({'index.html': page('<div data-composition-src="card.html"></div>'.repeat(n)), 'card.html': page('<p>card</p><i></i><i></i>')}), [10, 1_000]],
  ['stylesheet rules in a sub-composition', (n) => ({'index.html': page('<div data-composition-src="styled.html"></div>'), 'styled.html': page('', `<style>${'.a{color:red}'.repeat(n)}</style>`)}), [1_000, 100_000]],
]

console.log('compile cost per unit (median of 3, CPU time)')
for (const [name, files, sizes] of cases) {
  const perUnit = []
  for (const size of sizes) {
    const file = project(`${name.replace(/\W+/g, '-')}-${size}`, files(size))
    const {ms, rssMb} = measure(file)
    perUnit.push({cpu: (ms * 1000) / size, rss: (rssMb * 1024) / size})
    console.log(
      `${name.padEnd(40)} ${String(size).padStart(7)}: ${ms.toFixed(0).padStart(6)} ms CPU (${perUnit.at(-1).cpu.toFixed(1).padStart(6)} µs/unit), peak RSS +${rssMb.toFixed(0).padStart(4)} MB (${perUnit.at(-1).rss.toFixed(2)} KB/unit)`,
    )
  }
  console.log(`${''.padEnd(40)} per unit, large / small: CPU ${(perUnit[1].cpu / perUnit[0].cpu).toFixed(2)}, memory ${(perUnit[1].rss / perUnit[0].rss).toFixed(2)}`)
}
rmSync(work, {recursive: true, force: true})
