// How a single render scales with workers: end to end on the reference composition with 1, 2 and
// 4 workers here (its 12 s make 4 segments, so more workers would idle), each with frames/s, CPU
// busy share, CPU per frame and the peak memory of the browsers and encoders; then a model of the
// default (`--workers auto`: cores - 2, at least 1) on 2 to 32 cores from this machine's per-frame
// figures. `node bench/scaling.mjs` after `npm run build`; `npm run bench` runs it.
import {mkdtempSync, rmSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {childrenMemoryMiB, loadAverage, measure} from './cpu-meter.mjs'
import {REFERENCE} from './timeline.mjs'
import {engineModule} from './engine-dist.mjs'


/** Peak memory of this process's children while `fn` runs, sampled every `intervalMs`. */
async function withPeakMemory(fn, intervalMs = 500) {
  let peak = 0
  const timer = setInterval(() => (peak = Math.max(peak, childrenMemoryMiB())), intervalMs)
  try {
    return {result: await fn(), peakMiB: peak}
  } finally {
    clearInterval(timer)
  }
}

/**
 * Frames/s of a render of `frames` frames cut into `segments` equal segments on `cores` cores at
 * the default worker count. Workers take segments from one queue, so capturing takes at least
 * ceil(segments / workers) segments' worth of one worker's frames at `chainMs` each (the last round
 * may leave workers idle), and at least
 * the render's CPU (`cpuMs` a frame) spread over every core; start-up and assembly add `overheadSeconds`.
 */
export function modelFramesPerSecond({cores, frames, segments, chainMs, cpuMs, overheadSeconds, defaultWorkerCount}) {
  const workers = Math.min(defaultWorkerCount(cores), segments)
  const byWorkers = (Math.ceil(segments / workers) * (frames / segments) * chainMs) / 1000
  const byCpu = (frames * cpuMs) / (cores * 1000)
  return {workers, framesPerSecond: frames / (Math.max(byWorkers, byCpu) + overheadSeconds), cpuBound: byCpu >= byWorkers}
}

/**
 * `chainMs`: one worker's wall time per frame when nothing else competes (capture only);
 * `cpuMs`: CPU per frame of a whole render; `overheadSeconds`: start-up and assembly, which no worker
 * shortens; `browserMiB`/`encoderMiB`: memory of one worker's browser
 * and of one segment encoder.
 */
export async function benchScaling({log = console.log, chainMs, cpuMs, overheadSeconds, browserMiB, encoderMiB} = {}) {
  const {renderComposition} = await engineModule('render/render-composition.js')
  const {resolveRenderOptions} = await engineModule('render/resolve-options.js')
  const {defaultWorkerCount} = await engineModule('plan/worker-count.js')
  const {segmentFrames} = await engineModule('plan/segment-grid.js')
  const cores = availableParallelism()
  const work = mkdtempSync(join(tmpdir(), 'engine-scaling-'))
  try {
    log(`scaling with workers (reference composition, end to end, ${cores} cores here; load average ${loadAverage().toFixed(1)}):`)
    const measured = []
    for (const workers of [1, 2, 4]) {
      const options = resolveRenderOptions({quality: 'standard', workers, output: join(work, `w${workers}.mp4`)})
      const {result: run, peakMiB} = await withPeakMemory(() => measure(() => renderComposition({composition: REFERENCE, options})))
      const frames = run.result.totalFrames
      const row = {workers, framesPerSecond: frames / run.seconds, busy: run.utilisation, cpuMs: (run.cpuSeconds * 1000) / frames, peakMiB}
      measured.push(row)
      log(
        `  --workers ${workers}: ${row.framesPerSecond.toFixed(1).padStart(5)} frames/s (${(row.framesPerSecond / measured[0].framesPerSecond).toFixed(2)}x one worker), machine ${(row.busy * 100).toFixed(0)} % busy, ${row.cpuMs.toFixed(1)} ms CPU a frame, browsers and encoders at most ${peakMiB.toFixed(0)} MiB`,
      )
    }
    if (chainMs === undefined || cpuMs === undefined) return {measured}

    // The model: a 12 s and a 60 s 1080p30 render at the default worker count.
    const fps = {num: 30, den: 1}
    const renders = [12, 60].map((seconds) => {
      const frames = seconds * 30
      return {seconds, frames, segments: Math.ceil(frames / segmentFrames(fps, frames))}
    })
    log(`model of --workers auto (cores - 2): one worker draws a frame every ${chainMs.toFixed(1)} ms at most, a frame costs ${cpuMs.toFixed(1)} ms of CPU, start-up and assembly ${overheadSeconds.toFixed(2)} s;`)
    log(`  memory: ${browserMiB.toFixed(0)} MiB a worker's browser, ${encoderMiB.toFixed(0)} MiB a 1080p segment encoder (up to two a worker: one taking frames, one finishing)`)
    const modelled = []
    for (const modelCores of [2, 4, 8, 16, 32]) {
      const cells = renders.map((render) => ({...render, ...modelFramesPerSecond({cores: modelCores, ...render, chainMs, cpuMs, overheadSeconds, defaultWorkerCount})}))
      const workers = defaultWorkerCount(modelCores)
      const memoryGiB = (workers * (browserMiB + 2 * encoderMiB)) / 1024
      modelled.push({cores: modelCores, workers, cells, memoryGiB})
      log(
        `  ${String(modelCores).padStart(2)} cores, ${String(workers).padStart(2)} workers: ${cells
          .map((cell) => `${cell.seconds} s render ${cell.framesPerSecond.toFixed(0).padStart(4)} frames/s (${cell.workers} busy of ${cell.segments} segments, ${cell.cpuBound ? 'CPU-bound' : 'worker-bound'})`)
          .join('; ')}; memory up to ${memoryGiB.toFixed(1)} GiB`,
      )
    }
    return {measured, modelled}
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchScaling()
