import type {ChildProcess} from 'node:child_process'
import {FunctionError} from './child-answer.js'

/** Runs the handler once for an event, telling the caller about the child process it starts. */
export type RunHandler = (event: unknown, onChild: (child: ChildProcess) => void) => Promise<unknown>

/**
 * The render function of the local stack, shared by the workflow's tasks and direct invocations
 * (`engine lambda still`): at most `concurrency` invocations run at once, like a function's
 * reserved concurrency, and one more fails at once with Lambda.TooManyRequestsException, as on AWS.
 */
export class LocalFunction {
  private running = 0

  constructor(
    readonly concurrency: number,
    private readonly run: RunHandler,
  ) {}

  /** `onStarted` is called once the invocation has a slot, before the handler runs. */
  async invoke(event: unknown, options: {onChild?: (child: ChildProcess) => void; onStarted?: () => void} = {}): Promise<unknown> {
    if (this.running >= this.concurrency) {
      throw new FunctionError('Lambda.TooManyRequestsException', `Rate Exceeded. (reserved concurrency ${this.concurrency})`)
    }
    this.running++
    try {
      options.onStarted?.()
      return await this.run(event, options.onChild ?? (() => {}))
    } finally {
      this.running--
    }
  }
}
