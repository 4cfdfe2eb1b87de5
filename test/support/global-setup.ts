import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {TestProject} from 'vitest/node'
import {ensureFreshBuild} from './fresh-build.js'
import {REPO_ROOT} from './run-cli.js'
import {stopSharedStack} from './shared-stack-files.js'

/**
 * Runs once before any test file: the CLI and the page runtime in dist/ must be those of the
 * current sources; and the run gets a place for the local AWS stack its Lambda files share,
 * which the teardown ends, as it removes the run's temporary directory in memory (vitest.config.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureFreshBuild(REPO_ROOT)
  const sharedStackDir = await mkdtemp(join(tmpdir(), 'engine-test-stack-'))
  project.provide('sharedStackDir', sharedStackDir)
  // The stack outlives the test file that starts it; it must not outlive the run (see watchdog.mjs).
  project.provide('testRunPid', process.pid)
  return async () => {
    await stopSharedStack(sharedStackDir)
    const memoryTmp = process.env.ENGINE_TEST_MEMORY_TMPDIR
    if (memoryTmp) await rm(memoryTmp, {recursive: true, force: true})
  }
}
