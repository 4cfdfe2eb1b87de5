// What the JPEG quality of captured frames costs and buys: for each quality (the presets' draft 80,
// standard 92 and high 95, and a few around them), the browser's CPU per captured frame, the bytes
// of a frame, and the PSNR of the JPEG frames against a lossless PNG capture of the same frames of
// the reference composition (ffmpeg's psnr filter), as RGB and as the 4:2:0 video they become; the
// segment encoder's CPU to decode them, and the PSNR once encoded at `--quality standard` (against
// the lossless capture encoded the same way as the ceiling). `node bench/jpeg-quality.mjs [frames]`
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

const TO_VIDEO = 'colorspace=ispace=bt470bg:iprimaries=bt709:itrc=bt709:irange=pc:all=bt709:range=tv:format=yuv420p'
const PNG_TO_VIDEO = 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p'

/** CPU seconds of one ffmpeg run to the end (its CPU lands in this process's reaped children). */
function ffmpegCpu(args) {
  const before = treeCpuSeconds()
  const run = spawnSync('ffmpeg', ['-v', 'error', ...args], {encoding: 'utf8'})
  if (run.status !== 0) throw new Error(`ffmpeg ${args.join(' ')}: ${run.stderr}`)
  return treeCpuSeconds() - before
}

/**
 * What the segment encoder spends on a stream of images before x264 (decoding them and converting
 * to BT.709 4:2:0), in ms of CPU a frame, best of three; and the stream encoded as `--quality
 * standard` encodes it (x264 medium, crf 18, as the colour path of the mp4 format) into `output`.
 */
function encoderSide(stream, codec, frames, output) {
  const input = ['-f', 'image2pipe', '-c:v', codec, '-framerate', '30', '-i', stream, '-vf', codec === 'png' ? PNG_TO_VIDEO : TO_VIDEO]
  const decodeMs = (Math.min(...[0, 1, 2].map(() => ffmpegCpu([...input, '-f', 'null', '-']))) * 1000) / frames
  ffmpegCpu([...input, '-c:v', 'libx264', '-preset', 'medium', '-crf', '18', '-threads', '2', '-y', output])
  return {decodeMs}
}

/** PSNR (dB, average of the planes) of an encoded video against the lossless PNG stream as 4:2:0 BT.709. */
function videoPsnr(video, pngs) {
  // Frame by frame, whatever the two inputs' rates: the psnr filter pairs frames by timestamp.
  const args = ['-hide_banner', '-i', video, '-f', 'image2pipe', '-c:v', 'png', '-i', pngs, '-lavfi', `[0:v]setpts=N/(30*TB)[a];[1:v]${PNG_TO_VIDEO},setpts=N/(30*TB)[b];[a][b]psnr`, '-f', 'null', '-']
  return Number(spawnSync('ffmpeg', args, {encoding: 'utf8'}).stderr.match(/average:([0-9.]+)/)?.[1])
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
    const losslessVideo = join(work, 'lossless.mp4')
    encoderSide(pngs, 'png', frames, losslessVideo)
    log(`  lossless PNG: ${(lossless.bytes / 1024).toFixed(0)} KiB a frame, ${lossless.cpuMs.toFixed(1)} ms of CPU a frame; encoded at standard (x264 medium crf 18): ${videoPsnr(losslessVideo, pngs).toFixed(1)} dB`)
    const presets = Object.fromEntries(Object.entries(JPEG_QUALITY).map(([name, quality]) => [quality, name]))
    const rows = []
    for (const quality of QUALITIES) {
      const jpeg = await captureWith({imageFormat: 'jpeg', jpegQuality: quality})
      const jpegs = join(work, `q${quality}.jpeg-stream`)
      writeFileSync(jpegs, Buffer.concat(jpeg.images))
      const encoded = join(work, `q${quality}.mp4`)
      const {decodeMs} = encoderSide(jpegs, 'mjpeg', frames, encoded)
      const row = {quality, preset: presets[quality], cpuMs: jpeg.cpuMs, decodeMs, kib: jpeg.bytes / 1024, psnr: psnr(jpegs, pngs), encodedPsnr: videoPsnr(encoded, pngs)}
      rows.push(row)
      const {rgb, video, videoLuma} = row.psnr
      log(
        `  q${String(quality).padEnd(3)} ${(row.preset ?? '').padEnd(8)} ${row.kib.toFixed(0).padStart(4)} KiB a frame, ${row.cpuMs.toFixed(1).padStart(5)} ms of CPU a frame (capture) + ${decodeMs.toFixed(1)} ms (encoder's decode); PSNR ${rgb.toFixed(1)} dB as RGB, ${video.toFixed(1)} dB as 4:2:0 video (luma ${videoLuma.toFixed(1)} dB), ${row.encodedPsnr.toFixed(1)} dB encoded at standard`,
      )
    }
    return {lossless, rows}
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchJpegQuality({frames: Number(process.argv[2] ?? 48)})
