import {chmod, mkdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {REPO_ROOT} from '../../support/run-cli.js'

export interface FakeRuntime {
  /** Environment for runCli: PATH finds the fake client first (and no real docker/podman). */
  env: NodeJS.ProcessEnv
  /** Every invocation of the client so far, as argument lists. */
  calls(): Promise<string[][]>
}

/**
 * Installs a fake `docker` or `podman` client into `directory` (see fake-runtime.mjs). The PATH it
 * gives holds only that directory, so the real clients of this machine are never found.
 */
export async function fakeRuntime(directory: string, name: 'docker' | 'podman', options: Record<string, string> = {}): Promise<FakeRuntime> {
  const bin = join(directory, 'bin')
  const stateDir = join(directory, 'state')
  await mkdir(bin, {recursive: true})
  await mkdir(stateDir, {recursive: true})
  const client = join(bin, name)
  await writeFile(client, `#!/bin/sh\nexec "${process.execPath}" "${join(import.meta.dirname, 'fake-runtime.mjs')}" "$@"\n`)
  await chmod(client, 0o755)
  const log = join(directory, 'calls.jsonl')
  await writeFile(log, '')
  return {
    env: {
      PATH: bin,
      FAKE_RUNTIME_HOST_PATH: process.env.PATH,
      FAKE_RUNTIME_NAME: name,
      FAKE_RUNTIME_LOG: log,
      FAKE_RUNTIME_STATE: stateDir,
      FAKE_RUNTIME_ENGINE: join(REPO_ROOT, 'bin', 'run.js'),
      ...options,
    },
    async calls() {
      return (await readFile(log, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[])
    },
  }
}
