/**
 * Worker-thread entry of compileOffThread: compiles one composition and posts the result (plain
 * data) or the error back, so that the server's event loop never runs the parse itself.
 */
import {parentPort, workerData} from 'node:worker_threads'
import {compileComposition, type CompileOptions} from '../compose/compile-composition.js'
import {toEngineError} from '../errors/engine-error.js'

const {path, options} = workerData as {path: string; options: CompileOptions}
compileComposition(path, options).then(
  (compiled) => parentPort!.postMessage({ok: true, compiled}),
  (error: unknown) => parentPort!.postMessage({ok: false, error: toEngineError(error).toJSON()}),
)
