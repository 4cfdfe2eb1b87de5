// What the JPEG quality of captured frames costs and buys: for each quality (the presets' draft 80,
// standard 92 and high 95, and a few around them), the browser's CPU per captured frame, the bytes
// of a frame, and the PSNR of the JPEG frames against a lossless PNG capture of the same frames of
// the reference composition (ffmpeg's psnr filter), as RGB and as the 4:2:0 video they become. `node bench/jpeg-quality.mjs [frames]`
// after `npm run build`; `npm run bench` runs it.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {treeCpuSeconds} from './cpu-meter.mjs'
import {REFERENCE} from './timeline.mjs'
import {engineModule, standardPlan} from './engine-dist.mjs'


export const QUALITIES = [75, 80, 85, 90, 92, 95, 98]

/**
 * PSNR (dB) of an image2pipe stream of JPEGs against one of PNGs: as RGB, and as the 4:2:0 video
 * the encoder makes of both (luma and the average of the three planes).
 */
function psnr(jpegs, pngs) {
  const run = (convertJpeg, convertPng = convertJpeg) => {
    const args = ['-hide_banner', '-f', 'image2pipe', '-c:v', 'mjpeg', '-i', jpegs, '-f', 'image2pipe', '-c:v', 'png', '-i', pngs]
    const filter = `[0:v]${convertJpeg}[a];[1:v]${convertPng}[b];[a][b]psnr`
    const out = spawnSync('ffmpeg', [...args, '-lavfi', filter, '-f', 'null', '-'], {encoding: 'utf8'}).stderr
    return {average: Number(out.match(/average:([0-9.]+)/)?.[1]), luma: Number(out.match(/ y:([0-9.]+)/)?.[1])}
  }
  const rgb = run('format=rgb24')
  // The JPEGs as the mp4 encoder converts them (BT.601 full range to BT.709 limited, in 4:2:0);
  // the PNGs as an RGB source becomes BT.709 limited-range 4:2:0.
  const video = run('colorspace=ispace=bt470bg:iprimaries=bt709:itrc=bt709:irange=pc:all=bt709:range=tv:format=yuv420p', 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p')
  return {rgb: rgb.average, videoLuma: video.luma, video: video.average}
}

export async function benchJpegQuality({frames = 48, log = console.log, composition = REFERENCE} = {}) {
  const {JPEG_QUALITY} = await engineModule('plan/plan-render.js')
  const {openCaptureWorker} = await engineModule('capture/capture-worker.js')
  const {plan, browser} = await standardPlan(composition)
  const work = mkdtempSync(join(tmpdir(), 'engine-jpeg-'))
  // Frames spread over the whole render (motion, text, still holds), each seeked on its own.
  const picked = Array.from({length: frames}, (_, i) => Math.floor((i * plan.totalFrames) / frames))

  /** Captures the picked frames with `capture` settings; returns the images, their bytes and browser CPU per frame. */
  const captureWith = async (capture) => {
    const worker = await openCaptureWorker({...plan, capture: {...plan.capture, ...capture}}, {browser})
    try {
      // Once, unmeasured: the first frames of a page are slower than the rest.
      await worker.captureRange({start: 0, end: 5}, () => {})
      const images = []
      const before = treeCpuSeconds()
      for (const frame of picked) await worker.captureRange({start: frame, end: frame + 1}, (_index, image) => void images.push(image))
      const cpuMs = ((treeCpuSeconds() - before) * 1000) / frames
      return {images, cpuMs, bytes: images.reduce((sum, image) => sum + image.length, 0) / frames}
    } finally {
      await worker.close()
    }
  }

  try {
    const lossless = await captureWith({imageFormat: 'png'})
    const pngs = join(work, 'lossless.png-stream')
    writeFileSync(pngs, Buffer.concat(lossless.images))
    log(`JPEG quality of captured frames (${frames} frames of ${plan.width}x${plan.height} across the reference; PSNR against a lossless PNG capture of the same frames):`)
    log(`  lossless PNG: ${(lossless.bytes / 1024).toFixed(0)} KiB a frame, ${lossless.cpuMs.toFixed(1)} ms of CPU a frame`)
    const presets = Object.fromEntries(Object.entries(JPEG_QUALITY).map(([name, quality]) => [quality, name]))
    const rows = []
    for (const quality of QUALITIES) {
      const jpeg = await captureWith({imageFormat: 'jpeg', jpegQuality: quality})
      const jpegs = join(work, `q${quality}.jpeg-stream`)
      writeFileSync(jpegs, Buffer.concat(jpeg.images))
      const row = {quality, preset: presets[quality], cpuMs: jpeg.cpuMs, kib: jpeg.bytes / 1024, psnr: psnr(jpegs, pngs)}
      rows.push(row)
      const {rgb, video, videoLuma} = row.psnr
      log(
        `  q${String(quality).padEnd(3)} ${(row.preset ?? '').padEnd(8)} ${row.kib.toFixed(0).padStart(4)} KiB a frame, ${row.cpuMs.toFixed(1).padStart(5)} ms of CPU a frame (capture); PSNR ${rgb.toFixed(1)} dB as RGB, ${video.toFixed(1)} dB as 4:2:0 video (luma ${videoLuma.toFixed(1)} dB)`,
      )
    }
    return {lossless, rows}
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchJpegQuality({frames: Number(process.argv[2] ?? 48)})
