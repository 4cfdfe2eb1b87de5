// `npm run bench`: end-to-end, capture-only and encode-only throughput of the reference
// composition at 1920x1080, 30 fps, standard quality, all measured in this run so that the
// figures can be compared as ratios: the default render's per-frame timeline and CPU busy share
// (bench/timeline.mjs), one page against two per worker (bench/overlap.mjs), the peer when it is
// installed (bench/versus.mjs), JPEG quality against CPU and PSNR (bench/jpeg-quality.mjs),
// scaling with workers and a model for more cores (bench/scaling.mjs); then time to first frame,
// batch rows/min (bench/batch.mjs), each batch row's phases (bench/batch-phases.mjs), in-page
// capture against begin-frame capture (bench/in-page-capture.mjs) and where the browser's CPU goes per captured frame
// (bench/capture-profile.mjs). Run after `npm run build` (the npm script does). docs/performance.md
// explains the figures. `npm run bench -- --core` stops after the figures the performance targets
// name (capture-only, encode-only, the default end to end with its timeline and CPU bound).
import {mkdtempSync, rmSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {childrenMemoryMiB, loadAverage, measure} from './cpu-meter.mjs'
import {benchBatch} from './batch.mjs'
import {benchBatchPhases, benchOutputCheck} from './batch-phases.mjs'
import {benchInPageCapture} from './in-page-capture.mjs'
import {benchCaptureProfile} from './capture-profile.mjs'
import {benchFontLink, benchFonts} from './fonts.mjs'
import {benchJpegQuality} from './jpeg-quality.mjs'
import {benchOverlap} from './overlap.mjs'
import {benchScaling} from './scaling.mjs'
import {benchStartup} from './startup.mjs'
import {analyse, printTimeline, recordRender} from './timeline.mjs'
import {engineRunner, peerInstalled, peerRunner, PEER_DIR, versus} from './versus.mjs'
import {engineModule, standardPlan} from './engine-dist.mjs'

// The formats (mp4 …) are plugins, registered the way the package entries register them.
const {renderComposition} = await engineModule('render/render-composition.js')
const {resolveRenderOptions} = await engineModule('render/resolve-options.js')
const {compileComposition} = await engineModule('compose/compile-composition.js')
const {resolveFfmpeg} = await engineModule('encode/resolve-ffmpeg.js')
const {openCaptureWorker} = await engineModule('capture/capture-worker.js')
const {openSegmentEncoder} = await engineModule('encode/segment-encoder.js')
const {ENCODER_THREADS} = await engineModule('encode/deterministic-args.js')
const {renderStill} = await engineModule('still/render-still.js')

const coreOnly = process.argv.includes('--core')
const composition = new URL('./compositions/chart.html', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'engine-bench-'))
const cores = availableParallelism()
const checkout = fileURLToPath(new URL('..', import.meta.url))
const row = (name, frames, m) => {
  const fps = frames / m.seconds
  const cpu = m.cpuSeconds === undefined ? '' : `, ${((m.cpuSeconds * 1000) / frames).toFixed(1).padStart(5)} ms CPU a frame`
  console.log(`${name.padEnd(44)} ${String(frames).padStart(5)} frames ${m.seconds.toFixed(2).padStart(7)} s ${fps.toFixed(1).padStart(6)} frames/s  machine CPU ${(m.utilisation * 100).toFixed(0).padStart(3)}% of ${cores} cores${cpu}`)
  return fps
}

try {
  if (!coreOnly) {
    await benchFonts(compileComposition)
    await benchFontLink(renderComposition, resolveRenderOptions)
  }
  const {plan, browser} = await standardPlan(composition)
  const ffmpeg = await resolveFfmpeg()
  const load1 = loadAverage()
  console.log(`reference: ${composition}\n${plan.width}x${plan.height} @ 30 fps, ${plan.totalFrames} frames, standard quality; browser ${browser.executablePath} (begin-frame ${browser.beginFrame}), ${cores} cores; load average ${load1.toFixed(1)}${load1 > cores / 2 ? ' (the machine is busy: read ratios and CPU per frame, not frames/s)' : ''}\n`)

  // Capture only: one worker, images dropped; one page (the baseline), then the default worker's
  // two pages. The one-page images are kept for the encode-only pass below.
  const images = []
  const captureOnly = async (pages, onImage) => {
    const worker = await openCaptureWorker(plan, {browser, pages})
    let browserMiB = 0
    const run = await measure(() =>
      worker.captureRange({start: 0, end: plan.totalFrames}, (index, image) => {
        onImage?.(image)
        if (index === plan.totalFrames >> 1) browserMiB = childrenMemoryMiB()
      }),
    )
    await worker.close()
    return {...run, browserMiB}
  }
  const capture = await captureOnly(1, (image) => images.push(image))
  const captureFps = row('capture only (1 browser, 1 page, images dropped)', plan.totalFrames, capture)
  const capture2 = await captureOnly(2)
  const capture2Fps = row('capture only (1 browser, 2 pages, images dropped)', plan.totalFrames, capture2)
  console.log(`${''.padEnd(44)} two pages / one page: ${(capture2Fps / captureFps).toFixed(3)}x; browser memory ${capture.browserMiB.toFixed(0)} MiB with one page, ${capture2.browserMiB.toFixed(0)} MiB with two`)

  // Encode only: the captured JPEGs piped into one x264 segment encoder.
  let encoderMiB = 0
  const encode = await measure(async () => {
    const encoder = await openSegmentEncoder({plan, range: {start: 0, end: plan.totalFrames}, outputPath: join(work, 'encode-only.mp4'), ffmpeg, threads: ENCODER_THREADS})
    for (const [index, image] of images.entries()) {
      await encoder.write(image)
      if (index % 60 === 30) encoderMiB = Math.max(encoderMiB, childrenMemoryMiB())
    }
    await encoder.end()
  })
  const encodeFps = row(`encode only (x264 medium crf 18, ${ENCODER_THREADS} threads)`, plan.totalFrames, encode)

  // End to end at the default, with its per-frame timeline.
  const recorded = await recordRender({composition})
  const figures = analyse(recorded)
  const defaultFps = row(`end to end, --workers auto (${figures.workers} worker(s), ${figures.pages} page(s))`, plan.totalFrames, {
    seconds: figures.seconds,
    utilisation: figures.machineBusy,
    cpuSeconds: (figures.cpuMsPerFrame * plan.totalFrames) / 1000,
  })
  const baseline = captureFps
  console.log(
    `\ndefault end to end ${defaultFps.toFixed(1)} frames/s = ${(defaultFps / baseline).toFixed(2)}x capture-only with one page (target >= 0.9x), ${(defaultFps / capture2Fps).toFixed(2)}x with two; ${(defaultFps / encodeFps).toFixed(2)}x encode-only (same run)`,
  )
  console.log(`CPU busy during capture: this render ${(figures.capture.cpu.tree / cores * 100).toFixed(0)} % of ${cores} cores, the machine ${(figures.capture.cpu.machine * 100).toFixed(0)} % (target >= 95 %)\n`)
  printTimeline(figures)

  // Capture and encode each measured alone: the CPU a frame needs from both, and the frame rate
  // an end-to-end render could reach with every core busy on them and nothing else.
  const cpuPerFrame = (m) => (m.cpuSeconds * 1000) / plan.totalFrames
  const captureCpu = cpuPerFrame(capture)
  const encodeCpu = cpuPerFrame(encode)
  const boundFps = (cores * 1000) / (captureCpu + encodeCpu)
  console.log(
    `\nCPU per frame: capture ${captureCpu.toFixed(1)} ms (${cpuPerFrame(capture2).toFixed(1)} ms with two pages) + encode ${encodeCpu.toFixed(1)} ms; with all ${cores} cores busy, end to end cannot pass ${boundFps.toFixed(1)} frames/s = ${(boundFps / baseline).toFixed(2)}x capture-only (before start-up and assembly); the default render used ${figures.cpuMsPerFrame.toFixed(1)} ms a frame`,
  )
  // On a busy machine every run gets about the same share of the cores, so capture-only, which
  // needs only the capture's CPU, is faster by the CPU alone: a render that wastes nothing reaches
  // capture CPU / its own CPU of capture-only, whatever its pipeline.
  const shareBound = captureCpu / figures.cpuMsPerFrame
  console.log(
    `with a fixed share of a busy machine, end to end reaches at best capture CPU / render CPU = ${shareBound.toFixed(2)}x capture-only; measured ${(defaultFps / baseline).toFixed(2)}x (${((defaultFps / baseline / shareBound) * 100).toFixed(0)} % of that bound)`,
  )
  if (!coreOnly) {
    // The split before the fixed grid: one contiguous segment per worker, cut where the worker
    // count put it. A keyframe interval of exactly totalFrames / workers reproduces it.
    const seconds = (plan.totalFrames * plan.fps.den) / plan.fps.num
    const grid = {}
    for (const workers of [1, 2]) {
      const run = await measure(() => renderComposition({composition, options: resolveRenderOptions({quality: 'standard', workers, output: join(work, `grid-${workers}.mp4`)})}))
      grid[workers] = row(`end to end, --workers ${workers} (grid of ${plan.segmentFrames}-frame segments)`, plan.totalFrames, run)
      const resolved = resolveRenderOptions({quality: 'standard', workers, keyframeInterval: seconds / workers, output: join(work, `split-${workers}.mp4`)})
      const split = row(`end to end, --workers ${workers}, one segment per worker (old)`, plan.totalFrames, await measure(() => renderComposition({composition, options: resolved})))
      console.log(`${''.padEnd(44)} grid / old split with ${workers} worker(s): ${(grid[workers] / split).toFixed(3)}`)
    }

    // Video + poster: one pass (--poster, the poster taken from the capture) against a render and
    // a separate `engine still` of the same frame (a second page load and seek).
    const posterTime = 6
    const withPoster = await measure(() =>
      renderComposition({composition, options: resolveRenderOptions({quality: 'standard', output: join(work, 'poster-pass.mp4'), poster: posterTime})}),
    )
    const onePass = row('video + poster, one pass (--poster)', plan.totalFrames, withPoster)
    const twoRuns = await measure(async () => {
      await renderComposition({composition, options: resolveRenderOptions({quality: 'standard', output: join(work, 'video-only.mp4')})})
      await renderStill({composition, options: resolveRenderOptions({output: join(work, 'still.jpg')}), still: {time: posterTime}})
    })
    const twoPasses = row('video, then engine still (two invocations)', plan.totalFrames, twoRuns)
    console.log(`video + poster: one pass ${withPoster.seconds.toFixed(2)} s against ${twoRuns.seconds.toFixed(2)} s for two (${(onePass / twoPasses).toFixed(2)}x)`)

    console.log('\none page (the default) against two per worker (pagesPerWorker: 2):')
    await benchOverlap({pairs: 3, composition})

    console.log('')
    if (peerInstalled()) {
      console.log('against the best-known peer, each as a new process at its defaults:')
      await versus({ours: engineRunner(checkout, 'engine'), theirs: peerRunner(work), pairs: 2, composition, compareBytes: false}).catch((error) => console.log(`the peer failed: ${error.message}`))
    } else {
      console.log(`the peer (hyperframes 0.8.170) is not installed in ${PEER_DIR}: run /work/shared/corpus/compare.sh once (or set ENGINE_BENCH_PEER) for a same-run comparison`)
    }
    if (process.env.ENGINE_BENCH_BASELINE) {
      console.log(`\nagainst the build in ${process.env.ENGINE_BENCH_BASELINE} (ENGINE_BENCH_BASELINE):`)
      await versus({ours: engineRunner(checkout, 'this build'), theirs: engineRunner(process.env.ENGINE_BENCH_BASELINE, 'the baseline build'), pairs: 3, composition})
    }

    console.log('')
    await benchJpegQuality({composition})
    console.log('')
    await benchScaling({
      chainMs: 1000 / captureFps,
      cpuMs: figures.cpuMsPerFrame,
      overheadSeconds: figures.startup.seconds + figures.tail.assembly,
      browserMiB: capture.browserMiB,
      encoderMiB,
    })
    await benchStartup()
    console.log('')
    await benchBatch()
    console.log('')
    await benchBatchPhases({baseline: process.env.ENGINE_BENCH_BASELINE})
    await benchOutputCheck()
    console.log('')
    await benchInPageCapture({composition})
    console.log('')
    await benchCaptureProfile()
  }
} finally {
  rmSync(work, {recursive: true, force: true})
}
