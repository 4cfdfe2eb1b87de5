import {Worker} from 'node:worker_threads'

/**
 * The watchdog thread: it sleeps on a shared flag for `ms` and, if the hook has not finished by
 * then, writes the message and kills the process. It runs on its own thread because a hook that
 * loops synchronously blocks the main thread, where no timer, signal handler or promise can run:
 * without it such a plugin hangs every command for ever (SIGTERM included).
 */
const WATCHDOG_SOURCE = `
const {workerData} = require('node:worker_threads')
const {writeSync} = require('node:fs')
const flag = new Int32Array(workerData.buffer)
if (Atomics.wait(flag, 0, 0, workerData.ms) === 'timed-out' && Atomics.load(flag, 0) === 0) {
  writeSync(2, workerData.message + '\\n')
  process.kill(process.pid, 'SIGKILL')
}
`

/** Grace after the hook's own timeout: a hook that only awaits is reported by that timeout instead. */
const GRACE_MS = 5_000

/**
 * Runs `work` (loading and calling one plugin hook) under a watchdog that ends the process with
 * `message` on stderr when the main thread stays blocked past `timeoutMs` plus a grace. Plugin
 * hooks never run for `engine plugins …`, so the plugin can then be removed.
 */
export async function withBlockedHookWatchdog<T>(timeoutMs: number, message: string, work: () => Promise<T>): Promise<T> {
  const buffer = new SharedArrayBuffer(4)
  const watchdog = new Worker(WATCHDOG_SOURCE, {eval: true, workerData: {buffer, ms: timeoutMs + GRACE_MS, message}, stdout: false, stderr: false})
  watchdog.unref()
  try {
    return await work()
  } finally {
    const flag = new Int32Array(buffer)
    Atomics.store(flag, 0, 1)
    Atomics.notify(flag, 0)
  }
}
