import {fork, type ChildProcess} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {hostPackageExecArgv} from 'html-video-engine/internal/lib/sandbox/host-package.js'
import type {ChildReply} from './handler-child.js'
import {FunctionError} from './child-answer.js'

const CHILD_SCRIPT = fileURLToPath(new URL('./handler-child.js', import.meta.url))
/** Lambda recycles an execution environment that has been idle for a while; so does the stack. */
const IDLE_MS = 60_000

/**
 * The local function's execution environments: a child process runs one invocation at a time and
 * is kept for the next, as Lambda keeps a warm environment (module state, clients and caches carry
 * over; the first invocation of each pays the cold start). A child that dies mid-invocation (the
 * execution was stopped, or it crashed) fails that invocation with Runtime.ExitError and is gone.
 */
export class WarmChildren {
  private readonly idle: {child: ChildProcess; timer: NodeJS.Timeout}[] = []
  private readonly all = new Set<ChildProcess>()

  constructor(private readonly env: () => NodeJS.ProcessEnv) {}

  invoke(event: unknown, onChild: (child: ChildProcess) => void): Promise<unknown> {
    const warm = this.idle.pop()
    if (warm) clearTimeout(warm.timer)
    const child = warm?.child ?? this.fork()
    onChild(child)
    return new Promise((resolve, reject) => {
      const exited = (code: number | null, signal: NodeJS.Signals | null) => {
        child.off('message', answered)
        reject(new FunctionError('Runtime.ExitError', `the function exited without an answer (${signal ?? `exit code ${code}`})`))
      }
      const answered = (message: unknown) => {
        child.off('exit', exited)
        const reply = message as ChildReply
        this.keep(child)
        if (reply.ok) resolve(reply.result)
        else reject(new FunctionError(reply.errorType ?? 'Error', reply.errorMessage ?? ''))
      }
      child.once('exit', exited)
      child.once('message', answered)
      child.send(event as object)
    })
  }

  /** Stops every environment, busy or idle. */
  close(): void {
    for (const {timer} of this.idle.splice(0)) clearTimeout(timer)
    for (const child of this.all) child.kill('SIGTERM')
  }

  private fork(): ChildProcess {
    // The handler imports the engine by its package name: the child resolves it as this process does.
    const child = fork(CHILD_SCRIPT, [], {env: this.env(), execArgv: [...process.execArgv, ...hostPackageExecArgv()], stdio: ['ignore', 'ignore', 'inherit', 'ipc']})
    this.all.add(child)
    child.once('exit', () => {
      this.all.delete(child)
      const at = this.idle.findIndex((entry) => entry.child === child)
      if (at >= 0) clearTimeout(this.idle.splice(at, 1)[0].timer)
    })
    return child
  }

  private keep(child: ChildProcess): void {
    if (child.exitCode !== null || child.signalCode !== null) return
    const timer = setTimeout(() => {
      const at = this.idle.findIndex((entry) => entry.child === child)
      if (at >= 0) this.idle.splice(at, 1)
      child.kill('SIGTERM')
    }, IDLE_MS)
    timer.unref()
    this.idle.push({child, timer})
  }
}
