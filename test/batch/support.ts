import {mkdir, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import type {RenderRow} from '../../src/lib/batch/index.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {resolveRenderOptions, type ResolvedRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import type {RenderRequest} from '../../src/lib/render/render-composition.js'
import {useScratchDir as scratchDir} from '../support/scratch-dir.js'

export const CARD = join(import.meta.dirname, 'fixtures/card.html')

/** Call at describe level: a fresh scratch directory for every test. */
export const useScratchDir = (): (() => string) => scratchDir('engine-batch-test-', 'test')

export async function writeRows(dir: string, rows: unknown, name = 'rows.json'): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, JSON.stringify(rows))
  return path
}

export function options(input: RenderOptionsInput = {}): ResolvedRenderOptions {
  return resolveRenderOptions({fps: 10, quality: 'draft', ...input})
}

export interface FakeRender {
  render: RenderRow
  calls: RenderRequest[]
  /** Most renders in flight at once. */
  peak: () => number
}

/**
 * Stands in for renderComposition: writes the row's variables to the output path after `delayMs`,
 * emits a progress event, fails with PAGE_ERROR when the row sets `explode`, as the card fixture's script does, and stops
 * with CANCELLED when the signal fires.
 */
export function fakeRender(
  options: {
    delayMs?: number
    onStart?: (request: RenderRequest) => void | Promise<void>
    /** After the frames: the row reports its assemble stage, as a real render does, and runs this. */
    assemble?: (request: RenderRequest) => void | Promise<void>
  } = {},
): FakeRender {
  const calls: RenderRequest[] = []
  let inFlight = 0
  let peak = 0
  const render: RenderRow = async (request) => {
    calls.push(request)
    inFlight++
    peak = Math.max(peak, inFlight)
    try {
      await options.onStart?.(request)
      await new Promise<void>((resolve, reject) => {
        const cancel = () => {
          clearTimeout(timer)
          reject(new EngineError('CANCELLED', 'the render was cancelled'))
        }
        const timer = setTimeout(resolve, options.delayMs ?? 5)
        if (request.signal?.aborted) cancel()
        request.signal?.addEventListener('abort', cancel)
      })
      request.onEvent?.({type: 'progress', stage: 'capture', frame: 5, totalFrames: 5, framesPerSecond: 10, etaSeconds: 0})
      if (request.variables?.explode) throw new EngineError('PAGE_ERROR', `row exploded: ${String(request.variables.title)}`)
      if (options.assemble) {
        request.onEvent?.({type: 'stage', stage: 'assemble'})
        await options.assemble(request)
      }
      const output = request.options.output!
      await mkdir(dirname(output), {recursive: true})
      await writeFile(output, JSON.stringify(request.variables))
      return {output, durationSeconds: 0.5}
    } finally {
      inFlight--
    }
  }
  return {render, calls, peak: () => peak}
}
