// How much of a frame changes from one frame to the next, in real compositions: whether reusing
// the unchanged regions of a frame (capturing only a clip and compositing it over the previous
// image) could pay. For each composition, the first seconds are captured as a render captures them
// (1080p JPEG at `--quality standard`); consecutive frames are compared in 16x16 tiles (a JPEG
// macroblock: an unchanged tile decodes to the same pixels) and the damaged tiles' bounding box,
// which is what a clip would have to capture, is measured as a share of the frame. Then, on the
// reference composition, the browser's CPU for a full begin-frame screenshot against a draw
// without one plus a clipped `Page.captureScreenshot` of a quarter of the frame.
// `node bench/damage.mjs [composition-or-directory ...]` after `npm run build`; without arguments,
// every block of ../shared/corpus and the reference.
import {spawn} from 'node:child_process'
import {existsSync, readdirSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {treeCpuSeconds} from './cpu-meter.mjs'
import {engineModule, standardPlan} from './engine-dist.mjs'
import {REFERENCE} from './timeline.mjs'

const TILE = 16
const SECONDS = 5
// The shared corpus of real compositions beside the checkout (see its README).
const CORPUS = fileURLToPath(new URL('../../shared/corpus/blocks', import.meta.url))

/** Luma planes of an image2pipe stream of JPEGs, one Buffer per frame, decoded by ffmpeg. */
async function decodeLuma(images, width, height) {
  const child = spawn('ffmpeg', ['-v', 'error', '-f', 'image2pipe', '-c:v', 'mjpeg', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'])
  const chunks = []
  child.stdout.on('data', (chunk) => chunks.push(chunk))
  child.stdin.end(Buffer.concat(images))
  await new Promise((resolve, reject) => child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`)))))
  const all = Buffer.concat(chunks)
  const size = width * height
  return Array.from({length: all.length / size}, (_, i) => all.subarray(i * size, (i + 1) * size))
}

/** The bounding box of the tiles that differ between two luma planes, as a share of the frame (0 when none). */
function damagedShare(a, b, width, height) {
  let left = Infinity
  let right = -1
  let top = Infinity
  let bottom = -1
  let tiles = 0
  for (let ty = 0; ty * TILE < height; ty++) {
    for (let tx = 0; tx * TILE < width; tx++) {
      let differs = false
      for (let y = ty * TILE; y < Math.min(height, (ty + 1) * TILE) && !differs; y++) {
        const from = y * width + tx * TILE
        const to = Math.min(from + TILE, y * width + width)
        differs = a.compare(b, from, to, from, to) !== 0
      }
      if (!differs) continue
      tiles++
      left = Math.min(left, tx)
      right = Math.max(right, tx)
      top = Math.min(top, ty)
      bottom = Math.max(bottom, ty)
    }
  }
  const all = Math.ceil(width / TILE) * Math.ceil(height / TILE)
  return tiles === 0 ? {box: 0, tiles: 0} : {box: ((right - left + 1) * (bottom - top + 1)) / all, tiles: tiles / all}
}

async function measureComposition(composition, openCaptureWorker) {
  const {plan, browser} = await standardPlan(composition)
  const frames = Math.min(plan.totalFrames, Math.round((SECONDS * plan.fps.num) / plan.fps.den))
  const worker = await openCaptureWorker(plan, {browser})
  const images = []
  try {
    await worker.captureRange({start: 0, end: frames}, (_index, image) => void images.push(image))
  } finally {
    await worker.close()
  }
  const lumas = await decodeLuma(images, plan.width, plan.height)
  const shares = []
  for (let i = 1; i < lumas.length; i++) shares.push(damagedShare(lumas[i - 1], lumas[i], plan.width, plan.height))
  const count = (test) => shares.filter(test).length
  const changed = shares.filter((share) => share.box > 0)
  return {
    frames: shares.length,
    unchanged: count((share) => share.box === 0),
    quarter: count((share) => share.box > 0 && share.box <= 0.25),
    half: count((share) => share.box > 0.25 && share.box <= 0.5),
    most: count((share) => share.box > 0.5),
    meanBox: changed.length === 0 ? 0 : changed.reduce((sum, share) => sum + share.box, 0) / changed.length,
    meanTiles: changed.length === 0 ? 0 : changed.reduce((sum, share) => sum + share.tiles, 0) / changed.length,
  }
}

/** Browser CPU a frame: a begin-frame with a full screenshot, against one without plus a clipped screenshot of `share` of the frame. */
async function clipCost(openCaptureWorker, share = 0.25, frames = 60) {
  const {plan, browser} = await standardPlan(REFERENCE)
  const worker = await openCaptureWorker(plan, {browser})
  try {
    await worker.captureRange({start: 0, end: 10}, () => {})
    let before = treeCpuSeconds()
    await worker.captureRange({start: 10, end: 10 + frames}, () => {})
    const full = ((treeCpuSeconds() - before) * 1000) / frames
    // The worker's page, driven directly: each frame seeked, then a clipped screenshot (which
    // begin-frames without a screenshot of their own have to draw).
    const page = worker.pages.list[0]
    const side = Math.sqrt(share)
    const clip = {x: 0, y: 0, width: Math.round(plan.width * side), height: Math.round(plan.height * side), scale: 1}
    const limit = {timeoutMs: 10_000, onTimeout: () => new Error('the clipped screenshot did not answer within 10 s')}
    let bytes = 0
    let drawn = 0
    before = treeCpuSeconds()
    for (let frame = 10; frame < 10 + frames; frame++) {
      await page.connection.send('Runtime.evaluate', {expression: `window.__engine.seek(${frame})`, awaitPromise: true}, limit)
      // With begin-frame control a screenshot waits for a frame to be drawn: ask, then draw one.
      const shot = page.connection.send('Page.captureScreenshot', {format: 'jpeg', quality: plan.capture.jpegQuality, optimizeForSpeed: true, clip}, limit)
      let answered = false
      shot.then(() => (answered = true), () => (answered = true))
      for (let draws = 0; !answered && draws < 20; draws++) {
        await page.connection.send('HeadlessExperimental.beginFrame', {interval: 1000 / 30}, limit)
        drawn++
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      const {data} = await shot
      bytes += data.length * 0.75
    }
    const clipped = ((treeCpuSeconds() - before) * 1000) / frames
    return {full, clipped, share, kib: bytes / frames / 1024, draws: drawn / frames}
  } catch (error) {
    return {error: error.message}
  } finally {
    await worker.close()
  }
}

export async function benchDamage({compositions, log = console.log} = {}) {
  const {openCaptureWorker} = await engineModule('capture/capture-worker.js')
  const list = compositions ?? [REFERENCE, ...(existsSync(CORPUS) ? readdirSync(CORPUS).sort().map((name) => join(CORPUS, name, 'index.html')) : [])]
  log(`damage between consecutive frames (first ${SECONDS} s of each, 1080p JPEG at standard; bounding box of the ${TILE}x${TILE} tiles that changed, as a share of the frame):`)
  const totals = {frames: 0, unchanged: 0, quarter: 0, half: 0, most: 0}
  for (const composition of list) {
    const name = basename(composition) === 'index.html' ? basename(dirname(composition)) : basename(composition)
    try {
      const row = await measureComposition(composition, openCaptureWorker)
      for (const key of Object.keys(totals)) totals[key] += row[key]
      const pct = (n) => `${((100 * n) / row.frames).toFixed(0).padStart(3)} %`
      log(`  ${name.padEnd(36)} ${String(row.frames).padStart(4)} frames: unchanged ${pct(row.unchanged)}, box <= 1/4 ${pct(row.quarter)}, 1/4-1/2 ${pct(row.half)}, > 1/2 ${pct(row.most)}; a changed frame's box ${(row.meanBox * 100).toFixed(0)} % (tiles ${(row.meanTiles * 100).toFixed(0)} %)`)
    } catch (error) {
      log(`  ${name.padEnd(36)} skipped: ${error.message.split('\n')[0]}`)
    }
  }
  const pct = (n) => `${((100 * n) / totals.frames).toFixed(0)} %`
  log(`  all: ${totals.frames} frames: unchanged ${pct(totals.unchanged)}, box <= 1/4 ${pct(totals.quarter)}, 1/4-1/2 ${pct(totals.half)}, > 1/2 ${pct(totals.most)}`)
  const cost = await clipCost(openCaptureWorker)
  if (cost.error) log(`  clipped screenshot: ${cost.error}`)
  else log(`  browser CPU a frame on the reference: full begin-frame screenshot ${cost.full.toFixed(1)} ms; a draw without screenshot + Page.captureScreenshot of ${cost.share * 100} % of the frame ${cost.clipped.toFixed(1)} ms, ${cost.kib.toFixed(0)} KiB, ${cost.draws.toFixed(1)} begin-frames a frame (before compositing it into the previous image)`)
  return totals
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2)
  await benchDamage({compositions: args.length === 0 ? undefined : args.flatMap((arg) => (arg.endsWith('.html') ? [arg] : readdirSync(arg).map((name) => join(arg, name, 'index.html'))))})
}
