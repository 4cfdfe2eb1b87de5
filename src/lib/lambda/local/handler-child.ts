/**
 * Child-process entry of the local stack: receives one event over IPC, runs the real handler,
 * answers with its result or its error (as Lambda would report it) and exits, like a cold start.
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

process.once('message', (event: unknown) => {
  const reply = (message: ChildReply) => process.send!(message, () => process.exit(0))
  handler(event).then(
    (result) => reply({ok: true, result}),
    (error: Error) => reply({ok: false, errorType: error.name, errorMessage: error.message}),
  )
})
