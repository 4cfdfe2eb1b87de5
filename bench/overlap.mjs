// One page against two pages per worker, in alternating runs (A B A B …) so that a machine whose
// load drifts treats both alike: capture only (one browser, images dropped) and end to end at the
// default worker count, on the reference composition. Prints each pair, the median ratio of the
// pairs, the CPU per frame of each (user+sys of Node, browser and ffmpeg: it does not depend on
// how busy the machine is), and the identity of the outputs. `node bench/overlap.mjs [pairs]`
// after `npm run build`; `npm run bench` runs it with 3 pairs.
import {createHash} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {loadAverage, measure} from './cpu-meter.mjs'
import {REFERENCE} from './timeline.mjs'
import {engineModule, standardPlan} from './engine-dist.mjs'


const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export async function benchOverlap({pairs = 3, log = console.log, composition = REFERENCE} = {}) {
  const {renderComposition} = await engineModule('render/render-composition.js')
  const {resolveRenderOptions} = await engineModule('render/resolve-options.js')
  const {openCaptureWorker} = await engineModule('capture/capture-worker.js')
  const {plan, browser} = await standardPlan(composition)
  const work = mkdtempSync(join(tmpdir(), 'engine-overlap-'))
  const frames = plan.totalFrames

  /** Capture only: a worker with `pages` pages captures every frame (its pages are open beforehand). */
  const captureOnly = async (pages) => {
    const worker = await openCaptureWorker(plan, {browser, pages})
    try {
      const hash = createHash('sha256')
      const run = await measure(() => worker.captureRange({start: 0, end: frames}, (_index, image) => void hash.update(image)))
      return {...run, frames, digest: hash.digest('hex')}
    } finally {
      await worker.close()
    }
  }
  const endToEnd = async (pages) => {
    const output = join(work, `e2e-${pages}.mp4`)
    const run = await measure(() => renderComposition({composition, options: resolveRenderOptions({quality: 'standard', output}), pagesPerWorker: pages}))
    return {...run, frames, digest: createHash('sha256').update(readFileSync(output)).digest('hex')}
  }

  const results = {}
  try {
    for (const [name, run] of [['capture only', captureOnly], ['end to end, default workers', endToEnd]]) {
      const ratios = []
      const cpu = {1: [], 2: []}
      const digests = {1: new Set(), 2: new Set()}
      for (let pair = 0; pair < pairs; pair++) {
        // Alternate which goes first, so that neither always runs on a warmer machine.
        const order = pair % 2 === 0 ? [1, 2] : [2, 1]
        const runs = {}
        for (const pages of order) runs[pages] = await run(pages)
        for (const pages of [1, 2]) {
          cpu[pages].push((runs[pages].cpuSeconds * 1000) / runs[pages].frames)
          digests[pages].add(runs[pages].digest)
        }
        const fps = (pages) => runs[pages].frames / runs[pages].seconds
        ratios.push(fps(2) / fps(1))
        log(`  ${name}, pair ${pair + 1}: one page ${fps(1).toFixed(1)} frames/s, two pages ${fps(2).toFixed(1)} frames/s (${ratios.at(-1).toFixed(3)}x); load average ${loadAverage().toFixed(1)}`)
      }
      const identical = digests[1].size === 1 && digests[2].size === 1 && [...digests[1]][0] === [...digests[2]][0]
      const differ = `OUTPUTS DIFFER (${digests[1].size} different with one page, ${digests[2].size} with two)`
      results[name] = {ratio: median(ratios), cpuOne: median(cpu[1]), cpuTwo: median(cpu[2]), identical}
      log(
        `${name}: two pages / one page = ${median(ratios).toFixed(3)}x (median of ${pairs} alternating pairs); CPU per frame ${median(cpu[1]).toFixed(1)} ms with one page, ${median(cpu[2]).toFixed(1)} ms with two; ${identical ? 'identical output' : differ}`,
      )
    }
    return results
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchOverlap({pairs: Number(process.argv[2] ?? 3)})
