/**
 * The Lambda-like child of `engine lambda local --bundle`: it plays the Node.js runtime, loading
 * handler.mjs from the task root the way Lambda does, and imports nothing of the engine installed
 * on the host. One event over IPC, one answer, then exit.
 */
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

interface Invocation {
  event: unknown
  context: {awsRequestId: string; functionName: string; memoryLimitInMB: string; logStreamName: string}
}

process.on('SIGTERM', () => process.exit(143))
process.on('SIGINT', () => process.exit(130))

process.once('message', (message: Invocation) => {
  const reply = (answer: object) => process.send!(answer, () => process.exit(0))
  const handlerFile = join(process.env.LAMBDA_TASK_ROOT!, 'handler.mjs')
  import(pathToFileURL(handlerFile).href)
    .then((module: {handler?: (event: unknown, context: unknown) => Promise<unknown>}) => {
      if (typeof module.handler !== 'function') throw Object.assign(new Error(`${handlerFile} exports no handler`), {name: 'Runtime.HandlerNotFound'})
      return module.handler(message.event, message.context)
    })
    .then(
      (result) => reply({ok: true, result}),
      (error: Error) => reply({ok: false, errorType: error.name, errorMessage: error.message}),
    )
})
