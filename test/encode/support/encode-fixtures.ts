import {execFile} from 'node:child_process'
import {mkdtemp, readFile, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import type {SegmentRef} from '../../../src/lib/encode/format-plugin.js'
import {getFormat} from '../../../src/lib/encode/format-registry.js'
import {resolveFfmpeg, type FfmpegInfo} from '../../../src/lib/encode/resolve-ffmpeg.js'
import {openSegmentEncoder} from '../../../src/lib/encode/segment-encoder.js'
import {segmentPath} from '../../../src/lib/encode/segment-path.js'
import type {Fps} from '../../../src/lib/plan/fps.js'
import type {FrameRange, RenderPlan} from '../../../src/lib/plan/render-plan.js'
import {segmentFrames} from '../../../src/lib/plan/segment-grid.js'
import {useScratchDir as scratchDir} from '../../support/scratch-dir.js'

const exec = promisify(execFile)

export const WIDTH = 320
export const HEIGHT = 180

export function ffmpeg(): Promise<FfmpegInfo> {
  return resolveFfmpeg()
}

/** Call at describe level: a scratch directory made before the tests and removed after them. */
export const useScratchDir = (): (() => string) => scratchDir('engine-encode-test-')

export function testPlan(overrides: Partial<Omit<RenderPlan, 'encode'>> & {encode?: Partial<RenderPlan['encode']>} = {}): RenderPlan {
  const format = overrides.format ?? 'mp4'
  const alpha = getFormat(format).alpha
  const fps: Fps = overrides.fps ?? {num: 30, den: 1}
  return {
    html: '<html></html>',
    baseUrl: 'http://project.engine.localhost/',
    projectDir: '/tmp',
    network: {publicUrls: false, privateAddresses: false},
    runtime: {compositionId: 'test', fps, durationSeconds: 2, width: WIDTH, height: HEIGHT, variables: {}, instances: {}, seed: 1},
    width: WIDTH,
    height: HEIGHT,
    fps,
    totalFrames: 60,
    segmentFrames: segmentFrames(fps, 60),
    format,
    capture: {imageFormat: alpha ? 'png' : 'jpeg', jpegQuality: 90, transparent: alpha},
    ...overrides,
    encode: {quality: 'draft', gifLoop: 0, gpu: false, ...overrides.encode},
  }
}

export interface FrameOptions {
  count: number
  imageFormat: 'jpeg' | 'png'
  /** PNG only: left half fully transparent, right half opaque. */
  alpha?: boolean
  /** lavfi source; testsrc2 draws a frame counter, so every frame differs. */
  source?: string
}

/** Captured-image stand-ins made by ffmpeg itself, one Buffer per frame. */
export async function makeFrames(options: FrameOptions): Promise<Buffer[]> {
  const dir = await mkdtemp(join(tmpdir(), 'engine-frames-'))
  try {
    const filters = options.alpha ? ",format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,W/2),0,255)'" : ''
    const source = options.source ?? `testsrc2=s=${WIDTH}x${HEIGHT}:r=30`
    const extension = options.imageFormat === 'png' ? 'png' : 'jpg'
    await exec('ffmpeg', [
      '-hide_banner', '-loglevel', 'error',
      '-f', 'lavfi', '-i', source + filters,
      '-frames:v', String(options.count),
      ...(options.imageFormat === 'jpeg' ? ['-q:v', '3'] : []),
      '-start_number', '0',
      join(dir, `f%05d.${extension}`),
    ])
    const names = (await readdir(dir)).sort()
    return await Promise.all(names.map((name) => readFile(join(dir, name))))
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}

/** Contiguous ranges of the given lengths, as the planner splits frames between workers. */
export function splitRanges(lengths: readonly number[]): FrameRange[] {
  let start = 0
  return lengths.map((length) => {
    const range = {start, end: start + length}
    start += length
    return range
  })
}

/** Encodes each range in its own concurrent encoder, exactly as parallel workers would. */
export async function encodeSegments(
  plan: RenderPlan,
  frames: readonly Buffer[],
  lengths: readonly number[],
  workDir: string,
  info: FfmpegInfo,
): Promise<SegmentRef[]> {
  const plugin = getFormat(plan.format)
  const ranges = splitRanges(lengths)
  return Promise.all(
    ranges.map(async (range, index) => {
      const outputPath = segmentPath(workDir, plugin, index)
      const encoder = await openSegmentEncoder({plan, range, outputPath, ffmpeg: info})
      for (let frame = range.start; frame < range.end; frame++) await encoder.write(frames[frame])
      await encoder.end()
      return {path: outputPath, range}
    }),
  )
}

export {decodeFrame, decodedFrameHashes, ffprobe, probePackets, probeVideoStream, type ProbedPacket, type ProbedStream} from '../../support/media.js'
