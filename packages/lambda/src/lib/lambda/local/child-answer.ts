import type {ChildProcess} from 'node:child_process'
import type {ChildReply} from './handler-child.js'

/** A failed invocation, named and described the way Lambda reports a function error to Step Functions. */
export class FunctionError extends Error {
  constructor(errorType: string, errorMessage: string) {
    super(JSON.stringify({errorType, errorMessage}))
    this.name = errorType
  }
}

/**
 * Sends the child its one message and settles with its answer once it has exited: the result, the
 * error it reported (named as Lambda names a function error), or Runtime.ExitError without one.
 */
export function answerOf(child: ChildProcess, message: unknown, exitedWithout: (code: number | null, signal: NodeJS.Signals | null) => string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let reply: ChildReply | undefined
    child.once('message', (answer) => {
      reply = answer as ChildReply
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (reply?.ok) resolve(reply.result)
      else if (reply) reject(new FunctionError(reply.errorType ?? 'Error', reply.errorMessage ?? ''))
      else reject(new FunctionError('Runtime.ExitError', exitedWithout(code, signal)))
    })
    child.send(message as object)
  })
}
