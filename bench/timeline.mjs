// Where the wall time of one end-to-end render goes, frame by frame: start-up (compile, browser,
// page), then for each frame its seek, its begin-frame + screenshot + transfer, and the wait for
// the encoder, then the tail (the last segment's drain, assembly); with the CPU this render's
// processes and the whole machine used over time. Built on the engine's `engine:timeline`
// diagnostics channel. `node bench/timeline.mjs [composition] [--workers N] [--pages N]` after
// `npm run build`; `npm run bench` runs it at the defaults.
import {subscribe, unsubscribe} from 'node:diagnostics_channel'
import {mkdtempSync, rmSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'
import {KINDS, loadAverage, sampleCpu, trackCpu} from './cpu-meter.mjs'
import {engineModule} from './engine-dist.mjs'

export const REFERENCE = fileURLToPath(new URL('./compositions/chart.html', import.meta.url))

const sum = (values) => values.reduce((a, b) => a + b, 0)
const mean = (values) => (values.length === 0 ? 0 : sum(values) / values.length)
const overlap = (a, b) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start))

/**
 * Renders `composition` end to end with the timeline recorded. Returns the spans, the render's
 * stage events (with their times), CPU samples and totals.
 */
export async function recordRender({composition = REFERENCE, workers = 'auto', pagesPerWorker} = {}) {
  const {renderComposition} = await engineModule('render/render-composition.js')
  const {resolveRenderOptions} = await engineModule('render/resolve-options.js')
  const {TIMELINE_CHANNEL} = await engineModule('trace/timeline.js')
  const work = mkdtempSync(join(tmpdir(), 'engine-timeline-'))
  const spans = []
  const stages = []
  const onSpan = (span) => spans.push(span)
  subscribe(TIMELINE_CHANNEL, onSpan)
  const sampler = sampleCpu(250)
  const cpu = trackCpu()
  const started = performance.now()
  try {
    const options = resolveRenderOptions({quality: 'standard', workers, output: join(work, 'out.mp4')})
    const result = await renderComposition({
      composition,
      options,
      pagesPerWorker,
      onEvent: (event) => {
        if (event.type === 'stage' || event.type === 'start') stages.push({name: event.type === 'stage' ? event.stage : 'start', at: performance.now(), workers: event.workers})
      },
    })
    const ended = performance.now()
    return {result, spans, stages, started, ended, samples: sampler.stop(), cpuSeconds: cpu.stop()}
  } finally {
    sampler.stop()
    cpu.stop()
    unsubscribe(TIMELINE_CHANNEL, onSpan)
    rmSync(work, {recursive: true, force: true})
  }
}

/** Per-frame and per-phase figures of a recorded render (see recordRender). */
export function analyse({result, spans, stages, started, ended, samples, cpuSeconds}) {
  const of = (stage) => spans.filter((span) => span.stage === stage)
  const captures = of('capture').sort((a, b) => a.end - b.end)
  const seeks = of('seek')
  const frames = result.totalFrames
  const firstFrame = Math.min(...captures.map((span) => span.start))
  const lastFrame = Math.max(...captures.map((span) => span.end))
  const stageAt = (name) => stages.find((stage) => stage.name === name)?.at
  const captureStage = stageAt('capture') ?? started
  const assembleStage = stageAt('assemble') ?? ended
  const firstPage = of('page-load').filter((span) => span.page === 0).sort((a, b) => a.start - b.start)[0]
  const launch = of('browser-launch').sort((a, b) => a.start - b.start)[0]

  // The browser draws one begin-frame at a time per worker: the gaps between them are what the
  // worker's pipeline fails to overlap. A gap is spent partly waiting for the seek of the page that
  // draws next, partly waiting for the encoder to take an image, the rest in Node and round trips.
  const inCapture = (span) => span.start >= firstFrame && span.end <= lastFrame
  const beginFrames = of('begin-frame').filter(inCapture)
  // The capture loop waiting for a segment encoder: to take an image (its queue full), or, between
  // segments, to finish the previous segment before this worker captures the next.
  const encoderWaits = [...of('encoder-wait'), ...of('segment-wait')]
  let gapMs = 0
  let seekWaitMs = 0
  let encoderGapMs = 0
  const workers = new Set(beginFrames.map((span) => span.worker))
  for (const worker of workers) {
    const frames = beginFrames.filter((span) => span.worker === worker).sort((a, b) => a.start - b.start)
    const pageSeeks = (page) => seeks.filter((span) => span.worker === worker && span.page === page)
    const waits = encoderWaits.filter((span) => span.worker === worker)
    for (let i = 1; i < frames.length; i++) {
      const gap = {start: frames[i - 1].end, end: frames[i].start}
      if (gap.end <= gap.start) continue
      gapMs += gap.end - gap.start
      seekWaitMs += Math.min(gap.end - gap.start, sum(pageSeeks(frames[i].page).map((seek) => overlap(seek, gap))))
      encoderGapMs += Math.min(gap.end - gap.start, sum(waits.map((wait) => overlap(wait, gap))))
    }
  }
  const shots = beginFrames.filter((span) => span.screenshot)
  const probes = beginFrames.filter((span) => !span.screenshot)
  const captureSeconds = (lastFrame - firstFrame) / 1000
  const workerCount = workers.size
  const drawingMs = sum(beginFrames.map((span) => span.end - span.start))

  const cpuIn = (from, to) => {
    const inside = samples.filter((sample) => sample.at > from && sample.at - sample.seconds * 1000 < to)
    const seconds = Math.max(sum(inside.map((s) => s.seconds)), 1e-9)
    const average = (value) => sum(inside.map((s) => value(s) * s.seconds)) / seconds
    const demand = Object.fromEntries(KINDS.map((kind) => [kind, {run: average((s) => s.demand[kind].run), wait: average((s) => s.demand[kind].wait)}]))
    return {tree: average((s) => s.tree), machine: average((s) => s.machine), demand}
  }
  return {
    frames,
    workers: workerCount,
    pages: new Set(captures.map((span) => `${span.worker}:${span.page}`)).size,
    seconds: (ended - started) / 1000,
    framesPerSecond: frames / ((ended - started) / 1000),
    startup: {
      seconds: (firstFrame - started) / 1000,
      compileAndPlan: (captureStage - started) / 1000,
      browser: launch ? (launch.end - launch.start) / 1000 : 0,
      page: firstPage ? (firstPage.end - firstPage.start) / 1000 : 0,
      cpu: cpuIn(started, firstFrame),
    },
    capture: {
      seconds: captureSeconds,
      // Wall time one worker spends per frame it captures.
      perFrameMs: (captureSeconds * 1000 * workerCount) / frames,
      drawingMs: drawingMs / frames,
      drawingShare: drawingMs / (captureSeconds * 1000 * workerCount),
      beginFramesPerFrame: beginFrames.length / frames,
      screenshotMs: mean(shots.map((span) => span.end - span.start)),
      probeMs: mean(probes.map((span) => span.end - span.start)),
      reusedFrames: captures.filter((span) => span.reused).length,
      gapMs: gapMs / frames,
      seekWaitMs: seekWaitMs / frames,
      encoderGapMs: encoderGapMs / frames,
      seeksPerFrame: seeks.length / frames,
      seekMs: mean(seeks.map((span) => span.end - span.start)),
      segments: of('encoder-start').length,
      encoderStartMs: mean(of('encoder-start').map((span) => span.end - span.start)),
      segmentWaitMs: sum(of('segment-wait').map((span) => span.end - span.start)),
      cpu: cpuIn(firstFrame, lastFrame),
    },
    tail: {
      seconds: (ended - lastFrame) / 1000,
      drain: (assembleStage - lastFrame) / 1000,
      assembly: (ended - assembleStage) / 1000,
      cpu: cpuIn(lastFrame, ended),
    },
    cpuMsPerFrame: (cpuSeconds * 1000) / frames,
    busy: cpuSeconds / ((ended - started) / 1000) / availableParallelism(),
    machineBusy: cpuIn(started, ended).machine,
    samples: samples.map((sample) => ({...sample, at: sample.at - started})),
  }
}

const BARS = ' ▁▂▃▄▅▆▇█'
/** One character per sample: this render's processes' share of all cores. */
function sparkline(samples, cores) {
  return samples.map((sample) => BARS[Math.round((sample.tree / cores) * (BARS.length - 1))]).join('')
}

/**
 * Cores' worth the render's processes wanted (ran, plus waited runnable for a core) in a phase, by
 * kind: on a machine of its own, a phase wanting all the cores keeps them busy.
 */
export function wanted(cpu) {
  const total = sum(KINDS.map((kind) => cpu.demand[kind].run + cpu.demand[kind].wait))
  const parts = KINDS.map((kind) => `${kind} ${(cpu.demand[kind].run + cpu.demand[kind].wait).toFixed(2)} (ran ${cpu.demand[kind].run.toFixed(2)})`)
  return {total, text: `wanted ${total.toFixed(2)} cores: ${parts.join(', ')}`}
}

export function printTimeline(figures, {log = console.log, label = ''} = {}) {
  const cores = availableParallelism()
  const pct = (share) => `${(share * 100).toFixed(0)} %`
  const {startup, capture, tail} = figures
  const ms = (value) => `${value.toFixed(1).padStart(5)} ms`
  log(`per-frame timeline${label}: ${figures.frames} frames, ${figures.workers} worker(s), ${figures.pages} page(s), ${figures.seconds.toFixed(2)} s = ${figures.framesPerSecond.toFixed(1)} frames/s; load average ${loadAverage().toFixed(1)} on ${cores} cores`)
  log(`  start-up ${startup.seconds.toFixed(2)} s: compile, plan and media ${startup.compileAndPlan.toFixed(2)} s, browser start ${startup.browser.toFixed(2)} s, first page ready ${startup.page.toFixed(2)} s; this render's CPU ${pct(startup.cpu.tree / cores)}, machine ${pct(startup.cpu.machine)}`)
  log(`  capture  ${capture.seconds.toFixed(2)} s: ${capture.perFrameMs.toFixed(1)} ms of one worker's wall time per frame; this render's CPU ${pct(capture.cpu.tree / cores)} of ${cores} cores, machine ${pct(capture.cpu.machine)}`)
  log(`    browser drawing (begin-frame to image in Node) ${ms(capture.drawingMs)} a frame, ${pct(capture.drawingShare)} of the time: ${capture.beginFramesPerFrame.toFixed(2)} begin-frames a frame, ${capture.screenshotMs.toFixed(1)} ms with a screenshot, ${capture.probeMs.toFixed(1)} ms without (${capture.reusedFrames} frames reused)`)
  log(`    browser idle between begin-frames      ${ms(capture.gapMs)} a frame: waiting for a seek ${capture.seekWaitMs.toFixed(1)} ms, for an encoder ${capture.encoderGapMs.toFixed(1)} ms (queue full, or the previous segment still finishing), Node and round trips the rest`)
  log(`    seeks (page scripts, in the page)      ${ms(capture.seekMs)} each, ${capture.seeksPerFrame.toFixed(1)} a frame (every page seeks every frame)`)
  log(`    segments ${capture.segments}: starting an encoder ${capture.encoderStartMs.toFixed(1)} ms each, waiting for the previous segment's encoder ${capture.segmentWaitMs.toFixed(0)} ms in all`)
  log(`    ${wanted(capture.cpu).text}`)
  log(`  tail     ${tail.seconds.toFixed(2)} s: last segment's drain ${tail.drain.toFixed(2)} s, assembly ${tail.assembly.toFixed(2)} s; this render's CPU ${pct(tail.cpu.tree / cores)}`)
  log(`    ${wanted(tail.cpu).text}`)
  log(`  CPU: ${figures.cpuMsPerFrame.toFixed(1)} ms per frame (user+sys of Node, browser and ffmpeg), ${pct(figures.busy)} of ${cores} cores over the whole render`)
  log(`  this render's CPU over time (one character per 0.25 s, full block = all ${cores} cores busy):`)
  log(`    |${sparkline(figures.samples, cores)}|`)
}

export async function benchTimeline(options = {}) {
  const figures = analyse(await recordRender(options))
  printTimeline(figures, options)
  return figures
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {values, positionals} = parseArgs({allowPositionals: true, options: {workers: {type: 'string'}, pages: {type: 'string'}}})
  const workers = values.workers === undefined || values.workers === 'auto' ? 'auto' : Number(values.workers)
  await benchTimeline({composition: positionals[0] ?? REFERENCE, workers, pagesPerWorker: values.pages === undefined ? undefined : Number(values.pages)})
}
