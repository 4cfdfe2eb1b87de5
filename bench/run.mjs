// `npm run bench`: end-to-end, capture-only and encode-only throughput of the reference
// composition at 1920x1080, 30 fps, standard quality, all measured in this run so that the
// figures can be compared as ratios. Run after `npm run build` (the npm script does).
import {mkdtempSync, rmSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {measure} from './cpu-meter.mjs'

const dist = new URL('../dist/src/lib/', import.meta.url)
const load = (path) => import(new URL(path, dist).href)
const {renderComposition} = await load('render/render-composition.js')
const {resolveRenderOptions} = await load('plan/resolve-options.js')
const {compileComposition} = await load('compose/compile-composition.js')
const {planRender} = await load('plan/plan-render.js')
const {getFormat} = await load('encode/format-registry.js')
const {resolveBrowser} = await load('browser/resolve-browser.js')
const {resolveFfmpeg} = await load('encode/resolve-ffmpeg.js')
const {openCaptureWorker} = await load('capture/capture-worker.js')
const {openSegmentEncoder} = await load('encode/segment-encoder.js')
const {ENCODER_THREADS} = await load('render/capture-segments.js')

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
    endToEnd[workers] = row(`end to end, --workers ${workers}`, plan.totalFrames, run)
  }

  const PEER_FPS = 13
  const best = Math.max(...Object.values(endToEnd))
  console.log(`\nbest end to end: ${best.toFixed(1)} frames/s = ${(best / captureFps).toFixed(2)}x capture-only, ${(best / encodeFps).toFixed(2)}x encode-only (same run)`)
  console.log(`against the best known peer on this machine (~${PEER_FPS} frames/s for 1080p30 standard): ${(best / PEER_FPS).toFixed(2)}x (target 1.8x)`)
} finally {
  rmSync(work, {recursive: true, force: true})
}
