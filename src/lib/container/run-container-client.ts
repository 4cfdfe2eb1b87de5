import {spawn} from 'node:child_process'
import {createInterface} from 'node:readline'
import {EngineError} from '../errors/engine-error.js'

export interface ClientRun {
  /** The client's exit code (the container's, for `run`); null when it was killed by a signal. */
  exitCode: number | null
  /** The last lines of its stderr, for error messages. */
  stderrTail: string[]
}

const STDERR_TAIL_LINES = 20

/**
 * Runs the docker/podman client with `args`, handing each line of its stdout and stderr to the
 * callbacks as it arrives. When `signal` aborts, `onAbort` runs (to stop the container itself: the
 * client alone may leave it running) and the client is terminated.
 */
export function runContainerClient(
  command: string,
  args: readonly string[],
  options: {onStdout?: (line: string) => void; onStderr?: (line: string) => void; signal?: AbortSignal; onAbort?: () => Promise<void>} = {},
): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe']})
    const stderrTail: string[] = []
    createInterface({input: child.stdout}).on('line', (line) => options.onStdout?.(line))
    createInterface({input: child.stderr}).on('line', (line) => {
      stderrTail.push(line)
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift()
      options.onStderr?.(line)
    })
    const abort = () => {
      void (options.onAbort?.() ?? Promise.resolve()).finally(() => child.kill('SIGTERM'))
    }
    options.signal?.addEventListener('abort', abort, {once: true})
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', abort)
      reject(new EngineError('CONTAINER_UNAVAILABLE', `cannot run ${command}: ${error.message}`, {command}, {cause: error}))
    })
    child.on('close', (exitCode) => {
      options.signal?.removeEventListener('abort', abort)
      resolve({exitCode, stderrTail})
    })
  })
}
