// In-page capture ("html-in-canvas") against begin-frame capture: can the pinned browser draw the
// page into a canvas (`CanvasRenderingContext2D.drawElementImage`, behind
// `--enable-features=CanvasDrawElement` in Chromium 156) with the pixels begin-frame capture
// gives, and is it cheaper? Both paths run in the engine's capture worker (begin-frame control,
// the same page load and seeks):
//   - begin-frame: the production path, one `HeadlessExperimental.beginFrame` with a JPEG screenshot;
//   - in page: the page's content moved under a `<canvas layoutsubtree>`, each frame a begin-frame
//     without screenshot whose paint event draws the content into the canvas, then the canvas read
//     back as a JPEG (`toDataURL`) over the DevTools connection.
// Pixels (ENGINE_BENCH_KEEP=<dir> keeps the PNGs there): lossless captures of sampled frames of both paths, PSNR (ffmpeg's psnr filter). Speed:
// alternating runs over the same frames, wall time and CPU of the browser. Not part of the engine:
// docs/performance.md has the figures and the decision.
//
//   node bench/in-page-capture.mjs [--frames N] [--pairs N] [composition]
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {pathToFileURL} from 'node:url'
import {loadAverage, measure} from './cpu-meter.mjs'
import {engineModule, standardPlan} from './engine-dist.mjs'

const FEATURE = '--enable-features=CanvasDrawElement'
const LIMIT = {timeoutMs: 60_000, onTimeout: () => new Error('the page did not answer within 60 s')}

/** Moves the page's content under a layoutsubtree canvas of the composition's size (once per page). */
const SETUP = (width, height) => `(() => {
  const canvas = document.createElement('canvas')
  if (typeof canvas.getContext('2d').drawElementImage !== 'function') return 'drawElementImage is not available'
  canvas.width = ${width}; canvas.height = ${height}
  canvas.setAttribute('layoutsubtree', '')
  canvas.style.cssText = 'display:block;position:absolute;left:0;top:0;width:${width}px;height:${height}px'
  const content = document.createElement('div')
  // What the content inherited from the body, and the background of whichever of body and html has one.
  const body = getComputedStyle(document.body)
  const painted = (style) => style.backgroundImage !== 'none' || style.backgroundColor !== 'rgba(0, 0, 0, 0)'
  const backdrop = painted(body) ? body : getComputedStyle(document.documentElement)
  content.style.cssText = 'position:relative;overflow:hidden;width:${width}px;height:${height}px'
  for (const name of ['color', 'font-family', 'font-size', 'font-weight', 'line-height', 'letter-spacing']) content.style.setProperty(name, body.getPropertyValue(name))
  for (const name of ['background-color', 'background-image', 'background-size', 'background-position', 'background-repeat']) content.style.setProperty(name, backdrop.getPropertyValue(name))
  while (document.body.firstChild) content.appendChild(document.body.firstChild)
  canvas.appendChild(content)
  document.body.appendChild(canvas)
  window.__inPage = {canvas, content, ctx: canvas.getContext('2d')}
  return 'ok'
})()`

/** After the seek: the next paint event draws the content into the canvas. */
const ARM = `(() => {
  const p = window.__inPage
  p.painted = new Promise((resolve, reject) => {
    p.canvas.onpaint = () => {
      try { p.ctx.reset(); p.ctx.drawElementImage(p.content, 0, 0); resolve() } catch (error) { reject(error) }
    }
  })
  p.canvas.requestPaint()
})()`

const read = (type, quality) => `window.__inPage.painted.then(() => window.__inPage.canvas.toDataURL('${type}', ${quality}))`

async function openWorker(openCaptureWorker, plan, browser) {
  return openCaptureWorker(plan, {browser: {...browser, profile: {name: 'in-page-capture', args: [FEATURE], env: {}}}})
}

/** One frame through the in-page path: seek, arm, a begin-frame without screenshot, read the canvas. */
async function inPageFrame(worker, index, type, quality) {
  const page = worker.pages.list[0]
  await worker.evaluate(`window.__engine.seek(${index})`)
  await worker.evaluate(ARM)
  await page.capturer.pump(LIMIT)
  const url = await worker.evaluate(read(type, quality))
  return Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')
}

function psnr(a, b) {
  const out = spawnSync('ffmpeg', ['-hide_banner', '-i', a, '-i', b, '-lavfi', '[0:v]format=rgb24[x];[1:v]format=rgb24[y];[x][y]psnr', '-f', 'null', '-'], {encoding: 'utf8'}).stderr
  const value = out.match(/average:([0-9.]+|inf)/)?.[1]
  return value === 'inf' ? Infinity : Number(value)
}

export async function benchInPageCapture({composition = new URL('./compositions/chart.html', import.meta.url).pathname, frames = 120, pairs = 2, log = console.log} = {}) {
  const {openCaptureWorker} = await engineModule('capture/capture-worker.js')
  const {plan, browser} = await standardPlan(composition)
  const work = process.env.ENGINE_BENCH_KEEP ?? mkdtempSync(join(tmpdir(), 'engine-in-page-'))
  const count = Math.min(frames, plan.totalFrames)
  const quality = plan.capture.jpegQuality / 100
  log(`in-page capture (drawElementImage) against begin-frame capture: ${plan.width}x${plan.height}, ${count} frames of ${composition}; ${browser.executablePath}; load average ${loadAverage().toFixed(1)}`)
  try {
    // Does the flag alone change begin-frame capture? The first frames with and without it.
    const plain = await openCaptureWorker(plan, {browser})
    const flagged = await openWorker(openCaptureWorker, plan, browser)
    const first = async (worker) => {
      const images = []
      await worker.captureRange({start: 0, end: Math.min(10, count)}, (index, image) => images.push(image))
      return images
    }
    const [without, withFlag] = [await first(plain), await first(flagged)]
    await Promise.all([plain.close(), flagged.close()])
    log(`  begin-frame frames with ${FEATURE} ${without.every((image, index) => image.equals(withFlag[index])) ? 'byte-identical to' : 'DIFFERENT from'} those without it`)

    const inPage = await openWorker(openCaptureWorker, plan, browser)
    const setup = await inPage.evaluate(SETUP(plan.width, plan.height))
    if (setup !== 'ok') {
      log(`  in-page capture unavailable: ${setup}`)
      await inPage.close()
      return {available: false}
    }
    // Pixels (ENGINE_BENCH_KEEP=<dir> keeps the PNGs there): lossless captures of sampled frames, in-page against begin-frame.
    const pngPlan = {...plan, capture: {...plan.capture, imageFormat: 'png'}}
    const reference = await openCaptureWorker(pngPlan, {browser})
    const samples = [0, 1, count >> 2, count >> 1, count - 1].filter((value, index, all) => all.indexOf(value) === index)
    const scores = []
    for (const index of samples) {
      let expected
      await reference.captureRange({start: index, end: index + 1}, (_, image) => (expected = image))
      const actual = await inPageFrame(inPage, index, 'image/png', 1)
      const a = join(work, `begin-${index}.png`)
      const b = join(work, `in-page-${index}.png`)
      writeFileSync(a, expected)
      writeFileSync(b, actual)
      scores.push(psnr(b, a))
    }
    await reference.close()
    log(`  PSNR of in-page against begin-frame (lossless, frames ${samples.join(', ')}): ${scores.map((score) => (score === Infinity ? 'identical' : `${score.toFixed(1)} dB`)).join(', ')}`)

    // Speed: the same frames, JPEG at the plan's quality, alternating.
    const beginFrame = await openCaptureWorker(plan, {browser})
    const runs = {begin: [], inPage: []}
    for (let pair = 0; pair < pairs; pair++) {
      const a = await measure(() => beginFrame.captureRange({start: 0, end: count}, () => {}))
      const b = await measure(async () => {
        for (let index = 0; index < count; index++) await inPageFrame(inPage, index, 'image/jpeg', quality)
      })
      runs.begin.push(a)
      runs.inPage.push(b)
      log(`  pair ${pair + 1}: begin-frame ${(count / a.seconds).toFixed(1)} frames/s, ${((a.cpuSeconds * 1000) / count).toFixed(1)} ms CPU a frame; in page ${(count / b.seconds).toFixed(1)} frames/s, ${((b.cpuSeconds * 1000) / count).toFixed(1)} ms CPU a frame; load ${loadAverage().toFixed(1)}`)
    }
    await Promise.all([beginFrame.close(), inPage.close()])
    const sum = (list, key) => list.reduce((total, run) => total + run[key], 0)
    const speed = sum(runs.begin, 'seconds') / sum(runs.inPage, 'seconds')
    const cpu = sum(runs.inPage, 'cpuSeconds') / sum(runs.begin, 'cpuSeconds')
    log(`  in page / begin-frame: ${speed.toFixed(2)}x the capture speed, ${cpu.toFixed(2)}x the CPU a frame (all pairs)`)
    return {available: true, psnr: scores, speed, cpu}
  } finally {
    if (!process.env.ENGINE_BENCH_KEEP) rmSync(work, {recursive: true, force: true})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {values, positionals} = parseArgs({allowPositionals: true, options: {frames: {type: 'string', default: '120'}, pairs: {type: 'string', default: '2'}}})
  await benchInPageCapture({composition: positionals[0], frames: Number(values.frames), pairs: Number(values.pairs)})

}
