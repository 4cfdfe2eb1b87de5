import {setTimeout as sleep} from 'node:timers/promises'
import {executionEndTarget, type ExecutionStatusDetail} from '../runtime/execution-end-rule.js'
import type {LocalFunction} from './local-function.js'

/** An asynchronous invocation Lambda throttles waits and is tried again: here 1, 2, 4 … s, at most 8 tries (about 4 minutes). */
const MAX_TRIES = 8

/**
 * The stack's execution-end rule on one machine: each ended execution of the render workflow
 * goes through the rule's own pattern and input transformer (execution-end-rule.ts) and, when it
 * matches, invokes the function asynchronously, as EventBridge does: the caller does not wait,
 * a throttled invocation is tried again later, and a failure is logged, not raised.
 */
export class ExecutionEndEvents {
  private readonly pending = new Set<Promise<void>>()
  private readonly closing = new AbortController()

  constructor(
    private readonly stateMachineArn: string,
    private readonly target: LocalFunction,
  ) {}

  deliver(detail: ExecutionStatusDetail): void {
    const event = executionEndTarget(this.stateMachineArn, detail)
    if (!event || this.closing.signal.aborted) return
    const delivery = this.invoke(event).finally(() => this.pending.delete(delivery))
    this.pending.add(delivery)
  }

  /** Drops what has not started and waits for the invocations under way. */
  async close(): Promise<void> {
    this.closing.abort()
    await Promise.all(this.pending)
  }

  private async invoke(event: unknown): Promise<void> {
    for (let attempt = 0; attempt < MAX_TRIES && !this.closing.signal.aborted; attempt++) {
      try {
        await this.target.invoke(event)
        return
      } catch (error) {
        const {name, message} = error as Error
        if (name !== 'Lambda.TooManyRequestsException') {
          console.error(`execution-end rule: the function failed for ${(event as {executionArn: string}).executionArn}: ${name}: ${message}`)
          return
        }
        await sleep(1000 * 2 ** Math.min(attempt, 5), undefined, {signal: this.closing.signal}).catch(() => {})
      }
    }
  }
}
