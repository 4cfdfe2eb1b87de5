import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {RenderPlan} from '../../../src/lib/plan/render-plan.js'
import type {RenderResult} from '../../../src/lib/render/render-composition.js'
import type {RenderFunction} from '../../../src/lib/server/render-service.js'

interface Deferred<T> {
  promise: Promise<T>
  resolve(value: T): void
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return {promise, resolve}
}

/**
 * Stands in for renderComposition: emits the usual events, then waits until the test calls
 * `finish(key)` (or `autoFinishMs` passes), writes a small output and resolves. It honours the
 * abort signal like the real one. `key` is the variable `id`, so tests can tell requests apart.
 */
export class FakeRenderer {
  readonly started: string[] = []
  readonly running = new Set<string>()
  private readonly finishers = new Map<string, Deferred<() => void>>()

  constructor(private readonly options: {autoFinishMs?: number} = {}) {}

  /** The server sends `started` just before it calls the render function: wait for the call. */
  async whenStarted(key: string): Promise<void> {
    await this.finisher(key).promise
  }

  async finish(key: string): Promise<void> {
    ;(await this.finisher(key).promise)()
  }

  private finisher(key: string): Deferred<() => void> {
    let finisher = this.finishers.get(key)
    if (!finisher) this.finishers.set(key, (finisher = deferred()))
    return finisher
  }

  readonly render: RenderFunction = async (request) => {
    const key = String(request.variables?.id ?? 'unnamed')
    const {signal} = request
    const emit = request.onEvent ?? (() => {})
    this.started.push(key)
    this.running.add(key)
    try {
      emit({type: 'stage', stage: 'compile'})
      emit({type: 'warning', code: 'undeclared', message: 'fake warning'})
      emit({
        type: 'start',
        composition: request.composition,
        output: request.options.output!,
        format: request.options.format,
        width: 320,
        height: 180,
        fps: '10',
        fpsSource: 'flag',
        totalFrames: 10,
        firstFrame: 0,
        durationSeconds: 1,
        workers: 1,
        quality: 'draft',
        browser: {executablePath: 'fake', source: 'fake', beginFrame: false},
        ffmpeg: {path: 'fake', version: 'fake'},
        variables: request.variables ?? {},
      })
      emit({type: 'stage', stage: 'capture'})
      emit({type: 'progress', stage: 'capture', frame: 5, totalFrames: 10, framesPerSecond: 50, etaSeconds: 0.1})
      await new Promise<void>((resolve, reject) => {
        this.finisher(key).resolve(resolve)
        if (this.options.autoFinishMs !== undefined) setTimeout(resolve, this.options.autoFinishMs)
        if (signal?.aborted) reject(signal.reason)
        signal?.addEventListener('abort', () => reject(signal.reason))
      })
      emit({type: 'stage', stage: 'assemble'})
      const output = request.options.output!
      if (request.options.format === 'png-sequence') {
        await mkdir(output, {recursive: true})
        await writeFile(join(output, 'frame_000000.png'), 'png 0')
        await writeFile(join(output, 'frame_000001.png'), 'png 1')
      } else {
        await writeFile(output, `video for ${key}`)
      }
      const timings = {compileMs: 1, captureMs: 2, assembleMs: 3, totalMs: 6}
      const result: RenderResult = {
        output,
        bytes: 10,
        totalFrames: 10,
        durationSeconds: 1,
        plan: {format: request.options.format} as RenderPlan,
        timings,
        fetchedUrls: [],
      }
      return result
    } finally {
      this.running.delete(key)
    }
  }
}
