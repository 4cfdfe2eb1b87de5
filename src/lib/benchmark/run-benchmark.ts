import {rm} from 'node:fs/promises'
import {availableParallelism} from 'node:os'
import {join} from 'node:path'
import {outputExtension} from '../encode/format-plugin.js'
import {getFormat} from '../encode/format-registry.js'
import type {RenderOptionsInput} from '../plan/render-options.js'
import {resolveRenderOptions} from '../render/resolve-options.js'
import {defaultWorkerCount} from '../plan/worker-count.js'
import {renderComposition} from '../render/render-composition.js'
import type {RenderEvent} from '../render/render-events.js'
import {benchmarkComposition} from './benchmark-composition.js'
import type {BenchmarkMeasurement, BenchmarkResult, CaptureMode} from './benchmark-result.js'
import {recommend, workerCountsToMeasure} from './recommend.js'
import {makeTempDirectory} from '../files/temp-directory.js'

export interface BenchmarkOptions {
  /** Composition to measure; the built-in reference when undefined. */
  composition?: string
  /** Seconds of composition each configuration renders (a longer composition is cut). */
  durationSeconds: number
  /** Smaller reference frame (640x360) and no warm-up render: a rough answer in seconds. */
  quick?: boolean
  /** Render options of the config file; `workers` and outputs are the benchmark's own. */
  renderOptions?: RenderOptionsInput
  cores?: number
  signal?: AbortSignal
  /** Called before each measured render. */
  onConfiguration?: (workers: number, index: number, count: number) => void
  onMeasurement?: (measurement: BenchmarkMeasurement) => void
}

/** Options of the config file that say nothing about how fast this machine renders. */
const NOT_MEASURED = ['output', 'workers', 'batch', 'batchConcurrency', 'batchFailFast', 'variables', 'variablesFile', 'maxConcurrentRenders', 'quiet', 'json', 'docker'] as const

/**
 * Renders the composition for real (compile, browser workers, encoder, assembly into a temporary
 * directory) once per worker count, timing each render from start to finished file, and
 * recommends the fastest setting. Capture uses the mode the render picks for the browser found
 * (begin-frame with a headless shell, screenshots otherwise); renders cannot be told to use
 * another one, so that is the one mode measured.
 */
export async function runBenchmark(options: BenchmarkOptions): Promise<BenchmarkResult> {
  const cores = options.cores ?? availableParallelism()
  const base: RenderOptionsInput = {...options.renderOptions}
  for (const key of NOT_MEASURED) delete base[key]
  const format = getFormat(resolveRenderOptions(base).format)
  const workDir = await makeTempDirectory('benchmark')
  const composition = await benchmarkComposition({composition: options.composition, durationSeconds: options.durationSeconds, quick: options.quick ?? false, workDir})
  try {
    let run = 0
    const render = async (workers: number) => {
      let start: Extract<RenderEvent, {type: 'start'}> | undefined
      const started = performance.now()
      const result = await renderComposition({
        composition: composition.path,
        options: resolveRenderOptions(base, {workers, output: join(workDir, `run-${++run}${outputExtension(format) ?? ''}`)}),
        cores,
        signal: options.signal,
        onEvent: (event) => {
          if (event.type === 'start') start = event
        },
      })
      const seconds = (performance.now() - started) / 1000
      return {result, start: start!, seconds}
    }

    const workerCounts = workerCountsToMeasure(cores)
    // The first render of a process pays for cold disk caches (browser, encoder); it is not counted.
    if (!options.quick) await render(1)
    const configurations: BenchmarkMeasurement[] = []
    let last: Awaited<ReturnType<typeof render>> | undefined
    for (const [index, workers] of workerCounts.entries()) {
      options.onConfiguration?.(workers, index, workerCounts.length)
      last = await render(workers)
      const captureMode: CaptureMode = last.start.browser.beginFrame ? 'begin-frame' : 'screenshot'
      const measurement: BenchmarkMeasurement = {
        workers: last.start.workers,
        captureMode,
        framesPerSecond: round(last.result.totalFrames / last.seconds, 1),
        seconds: round(last.seconds, 2),
      }
      configurations.push(measurement)
      options.onMeasurement?.(measurement)
    }
    const {start, result} = last!
    return {
      composition: composition.label,
      width: start.width,
      height: start.height,
      fps: start.fps,
      format: start.format,
      quality: start.quality,
      frames: result.totalFrames,
      cores,
      autoWorkers: defaultWorkerCount(cores),
      configurations,
      recommendation: recommend(configurations),
    }
  } finally {
    await composition.cleanup()
    await rm(workDir, {recursive: true, force: true})
  }
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}
