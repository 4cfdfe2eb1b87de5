/**
 * Child-process entry of the local stack: an execution environment that receives events over IPC
 * one at a time, runs the real handler on each and answers with its result or its error (as Lambda
 * would report it), then waits for the next, as a warm Lambda environment does.
 */
import {handler} from '../handler.js'

export interface ChildReply {
  ok: boolean
  result?: unknown
  errorType?: string
  errorMessage?: string
}

// Let exit handlers run (puppeteer closes its browsers in one) when the stack stops an execution
// or Ctrl-C reaches the whole process group.
process.on('SIGTERM', () => process.exit(143))
process.on('SIGINT', () => process.exit(130))

process.on('message', (event: unknown) => {
  const reply = (message: ChildReply) => process.send!(message)
  handler(event).then(
    (result) => reply({ok: true, result}),
    (error: Error) => reply({ok: false, errorType: error.name, errorMessage: error.message}),
  )
})
