import {rm} from 'node:fs/promises'
import {constants, setPriority} from 'node:os'
import {EngineError} from '../errors/engine-error.js'
import type {FrameRange, RenderPlan} from '../plan/render-plan.js'
import {BITEXACT_MUX, BITEXACT_VIDEO, keyframeArgs} from './deterministic-args.js'
import type {FfmpegArgs} from './format-plugin.js'
import {ffmpegRate} from './frame-timing.js'
import {StderrTail, baseFfmpegArgs, ffmpegFailure, spawnFailure, spawnFfmpeg} from './run-ffmpeg.js'
import type {SegmentEncoder} from './segment-encoder-contract.js'

const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024

/**
 * Segment encoders run below normal priority (nice 10 on Unix). Capture is a chain of steps that
 * wait on each other (seek, draw, screenshot, transfer) and loses whole frames when x264's threads
 * hold the core it needs; the encoder has a deep queue in front of it and catches up on whatever
 * CPU the chain leaves. The priority changes when work runs, never what it produces.
 */
export const ENCODER_PRIORITY = constants.priority.PRIORITY_BELOW_NORMAL

export interface FfmpegSegmentOptions {
  plan: RenderPlan
  range: FrameRange
  outputPath: string
  ffmpeg: {ffmpegPath: string}
  args: FfmpegArgs
  threads?: number
  maxQueuedBytes?: number
}

/**
 * The full command: images arrive on stdin as an image2pipe stream at the render's exact rate. The
 * segment is one closed GOP with a fixed encoder thread count and bitexact muxing, so the same
 * frames give the same bytes whichever worker or chunk encodes them; a plugin's own arguments
 * come after and may refine these.
 */
export function segmentCommand(options: Pick<FfmpegSegmentOptions, 'plan' | 'outputPath' | 'args' | 'threads'>): string[] {
  const {plan, args} = options
  return [
    ...baseFfmpegArgs(),
    ...args.input,
    '-f', 'image2pipe',
    '-c:v', plan.capture.imageFormat === 'png' ? 'png' : 'mjpeg',
    '-framerate', ffmpegRate(plan.fps),
    '-i', 'pipe:0',
    ...keyframeArgs(plan),
    ...BITEXACT_VIDEO,
    ...BITEXACT_MUX,
    ...args.output,
    ...(options.threads === undefined ? [] : ['-threads', String(options.threads)]),
    options.outputPath,
  ]
}

/**
 * Pipes images into one ffmpeg. Up to `maxQueuedBytes` may wait in the pipe so that capture keeps
 * going while the encoder is busy (both cores stay loaded); beyond that write() waits for ffmpeg.
 */
export function openFfmpegSegmentEncoder(options: FfmpegSegmentOptions): SegmentEncoder {
  const {range, outputPath} = options
  const what = `encoding frames ${range.start}-${range.end - 1} into ${outputPath}`
  const command = segmentCommand(options)
  const child = spawnFfmpeg(options.ffmpeg.ffmpegPath, command, 'pipe')
  // Set before ffmpeg starts its encoder threads, which inherit it.
  if (child.pid !== undefined) lowerPriority(child.pid)
  const stdin = child.stdin!
  const stderr = new StderrTail()
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
  // A dying ffmpeg closes the pipe (EPIPE); its exit status carries the real reason.
  stdin.on('error', () => undefined)

  let failure: EngineError | undefined
  let aborted = false
  let running = true
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      failure ??= spawnFailure(options.ffmpeg.ffmpegPath, error)
      running = false
      resolve()
    })
    child.once('close', (code, signal) => {
      if (aborted) failure ??= new EngineError('CANCELLED', `${what}: aborted`)
      else if (code !== 0) failure ??= ffmpegFailure(what, `exited with ${code ?? signal}`, stderr, {args: command, exitCode: code})
      running = false
      resolve()
    })
  })

  const maxQueued = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES
  let queued = 0
  let waiters: Array<() => void> = []
  const nextFlush = () => new Promise<void>((resolve) => waiters.push(resolve))
  const flushed = () => {
    const ready = waiters
    waiters = []
    for (const resolve of ready) resolve()
  }

  return {
    async write(image) {
      if (failure) throw failure
      queued += image.length
      stdin.write(image, () => {
        queued -= image.length
        flushed()
      })
      while (queued > maxQueued && running) await Promise.race([nextFlush(), exited])
      if (failure) throw failure
      if (!running) throw ffmpegFailure(what, 'stopped reading before the segment was complete', stderr, {args: command})
    },
    async end() {
      stdin.end()
      await exited
      if (failure) throw failure
    },
    async abort() {
      aborted = true
      child.kill('SIGKILL')
      await exited
      await rm(outputPath, {force: true})
    },
  }
}

function lowerPriority(pid: number): void {
  try {
    setPriority(pid, ENCODER_PRIORITY)
  } catch {
    // Gone already (its exit status tells why), or a platform that refuses: it encodes the same.
  }
}
