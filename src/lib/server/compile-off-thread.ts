import {join} from 'node:path'
import {Worker} from 'node:worker_threads'
import {packageRoot} from '../sandbox/package-root.js'
import type {CompiledComposition, CompileOptions} from '../compose/compile-composition.js'
import {EngineError, type ErrorJson} from '../errors/engine-error.js'

/** Where `npm run build` puts the worker's entry, relative to the package root. */
const WORKER_PATH = join('dist', 'src', 'lib', 'server', 'compile-worker.js')

/** What one compile on the server may take: wall time and the worker's heap. */
export const SERVER_COMPILE_LIMITS = {seconds: 30, heapMb: 1024}

/**
 * Compiles a composition in a worker thread, for the server: parsing and inlining are synchronous
 * and, for a large page, take seconds, during which a server on the main thread would answer
 * nothing (not /health, not the queue, not SIGTERM). A compile over the time or memory limit is
 * stopped and refused with LIMIT_EXCEEDED; an aborted signal stops it too.
 */
export function compileOffThread(path: string, options: Omit<CompileOptions, 'env'>, signal?: AbortSignal): Promise<CompiledComposition> {
  signal?.throwIfAborted()
  const worker = new Worker(join(packageRoot(), WORKER_PATH), {
    workerData: {path, options},
    resourceLimits: {maxOldGenerationSizeMb: SERVER_COMPILE_LIMITS.heapMb},
  })
  return new Promise<CompiledComposition>((resolve, reject) => {
    let settled = false
    const finish = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      void worker.terminate()
      outcome()
    }
    const timer = setTimeout(() => {
      const {seconds} = SERVER_COMPILE_LIMITS
      finish(() =>
        reject(new EngineError('LIMIT_EXCEEDED', `compiling the composition took longer than ${seconds} s, the most a server request may take to compile`, {field: 'compile time', limit: seconds})),
      )
    }, SERVER_COMPILE_LIMITS.seconds * 1000)
    const onAbort = () => finish(() => reject(signal!.reason))
    signal?.addEventListener('abort', onAbort, {once: true})
    worker.once('message', (answer: {ok: true; compiled: CompiledComposition} | {ok: false; error: ErrorJson}) =>
      finish(() => (answer.ok ? resolve(answer.compiled) : reject(new EngineError(answer.error.code, answer.error.message, answer.error.details)))),
    )
    worker.once('error', (error: Error & {code?: string}) =>
      finish(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new EngineError('LIMIT_EXCEEDED', `compiling the composition needed more than ${SERVER_COMPILE_LIMITS.heapMb} MB, the most a server request may use to compile`, {
                field: 'compile memory',
                limit: SERVER_COMPILE_LIMITS.heapMb,
              })
            : new EngineError('INTERNAL', `the compile worker failed: ${error.message}`, undefined, {cause: error}),
        ),
      ),
    )
    worker.once('exit', (code) => finish(() => reject(new EngineError('INTERNAL', `the compile worker exited (code ${code}) without an answer`))))
  })
}
