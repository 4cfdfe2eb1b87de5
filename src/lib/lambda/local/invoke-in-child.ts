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
  return new Promise((resolve, reject) => {
    const child = fork(CHILD_SCRIPT, [], {env: options.env, stdio: ['ignore', 'ignore', 'inherit', 'ipc']})
    options.onChild?.(child)
    let reply: ChildReply | undefined
    child.once('message', (message) => {
      reply = message as ChildReply
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (reply?.ok) resolve(reply.result)
      else if (reply) reject(new FunctionError(reply.errorType ?? 'Error', reply.errorMessage ?? ''))
      else reject(new FunctionError('Runtime.ExitError', `the function exited without an answer (${signal ?? `exit code ${code}`})`))
    })
    child.send(event as object)
  })
}
