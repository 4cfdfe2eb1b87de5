// `npm run bench`: end-to-end, capture-only and encode-only throughput of the reference
// composition at 1920x1080, 30 fps, standard quality, all measured in this run so that the
// figures can be compared as ratios; then time to first frame, batch rows/min (bench/batch.mjs)
// and where the browser's CPU goes per captured frame (bench/capture-profile.mjs). Run after
// `npm run build` (the npm script does).
import {mkdtempSync, rmSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {measure} from './cpu-meter.mjs'
import {benchBatch} from './batch.mjs'
import {benchCaptureProfile} from './capture-profile.mjs'
import {benchFontLink, benchFonts} from './fonts.mjs'
import {benchStartup} from './startup.mjs'

const dist = new URL('../dist/src/lib/', import.meta.url)
const load = (path) => import(new URL(path, dist).href)
// The formats (mp4 …) are plugins, registered the way the package entries register them.
await load('builtin-plugins.js')
const {renderComposition} = await load('render/render-composition.js')
const {resolveRenderOptions} = await load('render/resolve-options.js')
const {compileComposition} = await load('compose/compile-composition.js')
const {planRender} = await load('plan/plan-render.js')
const {getFormat} = await load('encode/format-registry.js')
const {resolveBrowser} = await load('browser/resolve-browser.js')
const {resolveFfmpeg} = await load('encode/resolve-ffmpeg.js')
const {openCaptureWorker} = await load('capture/capture-worker.js')
const {openSegmentEncoder} = await load('encode/segment-encoder.js')
const {ENCODER_THREADS} = await load('encode/deterministic-args.js')
const {renderStill} = await load('still/render-still.js')

const composition = new URL('./compositions/chart.html', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'engine-bench-'))
const cores = availableParallelism()
const rows = []
const row = (name, frames, m) => {
  const fps = frames / m.seconds
  rows.push({name, frames, seconds: m.seconds, fps, cpu: m.utilisation})
  console.log(`${name.padEnd(44)} ${String(frames).padStart(5)} frames ${m.seconds.toFixed(2).padStart(7)} s ${fps.toFixed(1).padStart(6)} frames/s  CPU ${(m.utilisation * 100).toFixed(0).padStart(3)}% of ${cores} cores`)
  return fps
}

try {
  await benchFonts(compileComposition)
  await benchFontLink(renderComposition, resolveRenderOptions)
  const options = resolveRenderOptions({quality: 'standard'})
  const compiled = await compileComposition(composition)
  const {plan} = planRender(compiled, options, getFormat('mp4'))
  const browser = await resolveBrowser()
  const ffmpeg = await resolveFfmpeg()
  console.log(`reference: ${composition}\n${plan.width}x${plan.height} @ 30 fps, ${plan.totalFrames} frames, standard quality; browser ${browser.executablePath} (begin-frame ${browser.beginFrame}), ${cores} cores\n`)

  // Capture only: one worker, images dropped. Kept for the encode-only pass below.
  const images = []
  const worker = await openCaptureWorker(plan, {browser})
  const capture = await measure(() => worker.captureRange({start: 0, end: plan.totalFrames}, (_i, image) => void images.push(image)))
  await worker.close()
  const captureFps = row('capture only (1 browser, images dropped)', plan.totalFrames, capture)

  // Encode only: the captured JPEGs piped into one x264 segment encoder.
  const encode = await measure(async () => {
    const encoder = await openSegmentEncoder({plan, range: {start: 0, end: plan.totalFrames}, outputPath: join(work, 'encode-only.mp4'), ffmpeg, threads: ENCODER_THREADS})
    for (const image of images) await encoder.write(image)
    await encoder.end()
  })
  const encodeFps = row(`encode only (x264 medium crf 18, ${ENCODER_THREADS} threads)`, plan.totalFrames, encode)

  const endToEnd = {}
  for (const workers of ['auto', 1, 2]) {
    const resolved = resolveRenderOptions({quality: 'standard', workers, output: join(work, `e2e-${workers}.mp4`)})
    const run = await measure(() => renderComposition({composition, options: resolved}))
    endToEnd[workers] = row(`end to end, --workers ${workers} (grid of ${plan.segmentFrames}-frame segments)`, plan.totalFrames, run)
  }
  // The split before the fixed grid: one contiguous segment per worker, cut where the worker
  // count put it. A keyframe interval of exactly totalFrames / workers reproduces it.
  const seconds = (plan.totalFrames * plan.fps.den) / plan.fps.num
  for (const workers of [1, 2]) {
    const resolved = resolveRenderOptions({quality: 'standard', workers, keyframeInterval: seconds / workers, output: join(work, `split-${workers}.mp4`)})
    const run = await measure(() => renderComposition({composition, options: resolved}))
    const fps = row(`end to end, --workers ${workers}, one segment per worker (old)`, plan.totalFrames, run)
    console.log(`${''.padEnd(44)} grid / old split with ${workers} worker(s): ${(endToEnd[workers] / fps).toFixed(3)}`)
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

  const PEER_FPS = 13
  const best = Math.max(...Object.values(endToEnd))
  console.log(`\nbest end to end: ${best.toFixed(1)} frames/s = ${(best / captureFps).toFixed(2)}x capture-only, ${(best / encodeFps).toFixed(2)}x encode-only (same run)`)
  // Capture and encode each measured alone: the CPU a frame needs from both, and the frame rate
  // an end-to-end render could reach with every core busy on them and nothing else.
  const cpuPerFrame = (m) => (m.utilisation * cores * m.seconds * 1000) / plan.totalFrames
  const captureCpu = cpuPerFrame(capture)
  const encodeCpu = cpuPerFrame(encode)
  const boundFps = (cores * 1000) / (captureCpu + encodeCpu)
  console.log(
    `CPU per frame: capture ${captureCpu.toFixed(1)} ms + encode ${encodeCpu.toFixed(1)} ms; with all ${cores} cores busy, end to end cannot pass ${boundFps.toFixed(1)} frames/s = ${(boundFps / captureFps).toFixed(2)}x capture-only (before start-up and assembly)`,
  )
  console.log(`against the best known peer on this machine (~${PEER_FPS} frames/s for 1080p30 standard): ${(best / PEER_FPS).toFixed(2)}x (target 1.8x)`)
  await benchStartup()
  console.log('')
  await benchBatch()
  console.log('')
  await benchCaptureProfile()
} finally {
  rmSync(work, {recursive: true, force: true})
}
