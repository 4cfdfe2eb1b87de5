import {fork, type ChildProcess} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import type {ChildReply} from './handler-child.js'

const CHILD_SCRIPT = fileURLToPath(new URL('./handler-child.js', import.meta.url))

/** A failed invocation, named and described the way Lambda reports a function error to Step Functions. */
export class FunctionError extends Error {
  constructor(errorType: string, errorMessage: string) {
    super(JSON.stringify({errorType, errorMessage}))
    this.name = errorType
  }
}

export interface InvokeOptions {
  env: NodeJS.ProcessEnv
  /** Called with the child as soon as it exists, so that the caller can stop it. */
  onChild?: (child: ChildProcess) => void
}

/** Runs the handler once in a fresh Node process, like a cold Lambda invocation. */
export function invokeInChild(event: unknown, options: InvokeOptions): Promise<unknown> {
  const child = fork(CHILD_SCRIPT, [], {env: options.env, stdio: ['ignore', 'ignore', 'inherit', 'ipc']})
  options.onChild?.(child)
  return answerOf(child, event, (code, signal) => `the function exited without an answer (${signal ?? `exit code ${code}`})`)
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
