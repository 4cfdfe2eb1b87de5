import {readFile, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {isAlive} from './child-processes.js'
import {until} from './until.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory of this run where the shared local AWS stack keeps its state (see sharedStack). */
    sharedStackDir: string
    /** The vitest process of the run: the shared stack ends when it is gone, teardown or not. */
    testRunPid: number
  }
}

/** Where the shared local stack of a run keeps its lock, lines, pid and output (see shared-stack.ts). */
export const stackFiles = (directory: string) => ({
  lock: join(directory, 'starting'),
  ready: join(directory, 'stack.json'),
  failed: join(directory, 'failed.txt'),
  pid: join(directory, 'pid'),
  out: join(directory, 'stack.out'),
  err: join(directory, 'stack.err'),
})

/**
 * The run's teardown: ends the shared stack if a file started it, and removes its state. The pid
 * recorded is the stack's watchdog, which leads a process group of its own: the group is signalled,
 * so that a stack that does not stop in time is killed together with its function environments.
 */
export async function stopSharedStack(directory: string): Promise<void> {
  const paths = stackFiles(directory)
  const pid = Number(await readFile(paths.pid, 'utf8').catch(() => ''))
  if (pid > 0 && isAlive(pid)) {
    process.kill(-pid, 'SIGTERM')
    if (!(await until(() => !isAlive(pid), 30_000))) process.kill(-pid, 'SIGKILL')
  }
  await rm(directory, {recursive: true, force: true})
}
