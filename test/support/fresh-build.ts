import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'

/**
 * What `npm run build` turns into dist/ (and the page runtime bundle, and the serverless companion's
 * dist/, whose commands and function the Lambda tests run): a change to any of them
 * makes dist/ stale. Folders count too, so that a deleted or renamed source makes it stale.
 */
const SOURCES = ['src', 'plugins', 'tsconfig.json', 'package.json', 'scripts/build.mjs', 'scripts/generate-manifest.mjs', 'packages/lambda/src', 'packages/lambda/tsconfig.json', 'packages/lambda/package.json']

/** The newest modification time under `path` (files and folders), with the path that has it. */
function newest(path: string): {mtimeMs: number; path: string} {
  const info = statSync(path)
  let found = {mtimeMs: info.mtimeMs, path}
  if (!info.isDirectory()) return found
  for (const name of readdirSync(path)) {
    const inner = newest(join(path, name))
    if (inner.mtimeMs > found.mtimeMs) found = inner
  }
  return found
}

/** The oldest modification time of the JavaScript files under `path`: when the build that made them began. */
function oldestOutput(path: string): number {
  let oldest = Number.POSITIVE_INFINITY
  for (const entry of readdirSync(path, {withFileTypes: true})) {
    const inner = join(path, entry.name)
    if (entry.isDirectory()) oldest = Math.min(oldest, oldestOutput(inner))
    else if (entry.name.endsWith('.js')) oldest = Math.min(oldest, statSync(inner).mtimeMs)
  }
  return oldest
}

/**
 * Why dist/ does not show the current sources (a source newer than the build, or no build), or
 * undefined when it does.
 */
export function staleBuildReason(root: string): string | undefined {
  const dist = join(root, 'dist')
  if (!existsSync(join(dist, 'runtime', 'engine-runtime.js')) || !existsSync(join(dist, 'src')) || !existsSync(join(root, 'packages', 'lambda', 'dist', 'src'))) return 'there is no build'
  const built = oldestOutput(dist)
  for (const source of SOURCES) {
    const path = join(root, source)
    if (!existsSync(path)) continue
    const changed = newest(path)
    if (changed.mtimeMs > built) return `${relative(root, changed.path)} changed after the last build`
  }
  return undefined
}

/**
 * Builds when dist/ is stale. About 50 test files run the CLI as a user does, from dist/, and the
 * page runtime is bundled there: without this, a test run after an edit of src/ would test the
 * old code and pass or fail for the wrong reason. `npm test` relies on it rather than building
 * every time: where dist/ is current (CI, right after scripts/setup.sh built it) it costs one walk
 * of the tree instead of a build.
 */
export function ensureFreshBuild(root: string, log: (line: string) => void = console.log, env: NodeJS.ProcessEnv = process.env): void {
  const reason = staleBuildReason(root)
  if (reason === undefined) return
  // For the mutation runner's checks of modules the tests import from src/ (test/mutations): said aloud.
  if (env.ENGINE_TEST_DIST === 'as-is') {
    log(`test setup: ${reason}, and ENGINE_TEST_DIST=as-is: running on the old dist/ (tests that run the CLI test old code)`)
    return
  }
  log(`test setup: ${reason}; running the build so that the tests see the current sources`)
  try {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8'})
  } catch (error) {
    // tsc writes its diagnostics on stdout.
    const {stdout, stderr} = error as {stdout?: string; stderr?: string}
    const said = `${stdout ?? ''}${stderr ?? ''}`.trim().split('\n').slice(0, 20).join('\n')
    throw new Error(`test setup: the build failed, so no test runs (they would run stale code in dist/). Fix it (npm run build) and run them again:\n${said}`)
  }
  const still = staleBuildReason(root)
  if (still !== undefined) throw new Error(`test setup: dist/ is still stale after building (${still}); the tests would run old code, so none runs.`)
}
