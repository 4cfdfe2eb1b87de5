import {spawn, type ChildProcess} from 'node:child_process'
import {join} from 'node:path'
import {REPO_ROOT} from '../../support/run-cli.js'

export interface ServeProcess {
  url: string
  child: ChildProcess
  output(): string
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
}

/** Starts the built `engine serve` and waits for its "listening on <url>" line. */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'serve', '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: {...process.env, ENGINE_SERVER_TOKEN: undefined, PRODUCER_MAX_CONCURRENT_RENDERS: undefined, ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`engine serve did not start: ${output}`)), 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk
      // The whole line: a pipe may deliver it in pieces, and callers read the rest of it.
      const match = /listening on (http:\/\/\S+).*\n/.exec(output)
      if (!match) return
      clearTimeout(timer)
      resolve({
        url: match[1],
        child,
        output: () => output,
        stop: () => {
          child.kill('SIGTERM')
          return exited
        },
      })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`engine serve exited with ${code}: ${output}`))
    })
  })
}
