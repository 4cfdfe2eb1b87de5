import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {REQUIRE_CAPABILITIES_ENV} from './capabilities.js'
import {REPO_ROOT} from './run-cli.js'
import {until} from './until.js'
import {PROCESSES} from './timeouts.js'

const FIXTURE_PROJECT = join(REPO_ROOT, 'test', 'fixtures', 'summary-report')

interface VitestRun {
  code: number | null
  summary: string | undefined
  output: string
}

interface FixtureOptions {
  /** More arguments for vitest (`--bail 1`) and more files. */
  args?: string[]
  env?: NodeJS.ProcessEnv
  /** Called with the child once it runs, e.g. to interrupt it. */
  started?: (child: ChildProcess) => void
  /** The command line before vitest's own (scripts/ci-test.sh). */
  wrapper?: string[]
}

/** Runs vitest in a child process on one file of the fixture project, as `npm test` would run ours. */
function runFixture(file: string, options: FixtureOptions = {}): Promise<VitestRun> {
  // The child must not believe it is a worker of this run, nor inherit CI's capability rule unless asked.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'TEST' && name !== REQUIRE_CAPABILITIES_ENV))
  const vitest = [process.execPath, join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', FIXTURE_PROJECT, file, ...(options.args ?? [])]
  const [command, ...args] = [...(options.wrapper ?? []), ...vitest]
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {cwd: FIXTURE_PROJECT, env: {...env, NO_COLOR: '1', ...options.env}, stdio: ['ignore', 'pipe', 'pipe']})
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, output, summary: output.split('\n').findLast((line) => line.startsWith('tests: '))})
    })
    options.started?.(child)
  })
}

describe('the closing tests: line', PROCESSES, () => {
  it('counts tests under a beforeAll that threw as failed, not skipped', async () => {
    const run = await runFixture('broken-before-all.fixture.ts')
    expect(run.code).not.toBe(0)
    expect(run.summary, run.output).toBe('tests: 1 passed, 2 failed, 1 skipped')
  })

  it('counts an afterAll that threw as a failure although every test passed', async () => {
    const run = await runFixture('broken-after-all.fixture.ts')
    expect(run.code).not.toBe(0)
    expect(run.summary, run.output).toBe('tests: 1 passed, 1 failed, 0 skipped')
  })

  it('counts a file that failed to load as a failure', async () => {
    const run = await runFixture('broken-import.fixture.ts')
    expect(run.code).not.toBe(0)
    expect(run.summary, run.output).toBe('tests: 0 passed, 1 failed, 0 skipped')
  })

  it('counts an unhandled error as a failure', async () => {
    const run = await runFixture('unhandled-error.fixture.ts')
    expect(run.code).not.toBe(0)
    expect(run.summary, run.output).toBe('tests: 1 passed, 1 failed, 0 skipped')
  })
  it('counts a run that failed outside any test (a global setup that threw) as a failure, and says so', async () => {
    const run = await runFixture('passing.fixture.ts', {env: {SUMMARY_FIXTURE_GLOBAL_SETUP: 'throws'}})
    expect(run.code).not.toBe(0)
    expect(run.output).toContain('global setup broke on purpose')
    expect(run.output).toContain('vitest failed outside any test (a global setup, the configuration or collecting the files; its error is above)')
    expect(run.summary, run.output).toBe('tests: 0 passed, 1 failed, 0 skipped')
  })

  it('says a run stopped by --bail did not reach every test', async () => {
    const run = await runFixture('broken-before-all.fixture.ts', {args: ['--bail', '1']})
    expect(run.code).not.toBe(0)
    expect(run.output).toContain('the run stopped at its first failure (--bail 1); tests it had not reached are not counted')
    expect(run.summary).toMatch(/^tests: \d+ passed, [1-9]\d* failed, \d+ skipped$/)
  })

  it('counts an interrupted run (SIGINT while a test runs) as a failure, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-summary-'))
    const mark = join(dir, 'running')
    try {
      let interrupted: Promise<boolean> | undefined
      const run = await runFixture('interrupted.fixture.ts', {
        env: {SUMMARY_FIXTURE_MARK: mark},
        started: (child) => {
          interrupted = until(() => existsSync(mark), 40_000).then((running) => running && child.kill('SIGINT'))
        },
      })
      expect(await interrupted).toBe(true)
      expect(run.code).not.toBe(0)
      expect(run.output).toMatch(/the run was interrupted before it finished/)
      // Tests that ended before the interrupt may or may not have been reported yet; the one cut short is a failure.
      expect(run.summary, run.output).toMatch(/^tests: [01] passed, 1 failed, 0 skipped$/)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('lists every skipped test with its reason', async () => {
    const listed = await runFixture('capability-skip.fixture.ts')
    expect(listed.code, listed.output).toBe(0)
    expect(listed.output).toContain('skipped: capability-skip.fixture.ts > needs a tool this machine lacks: missing capability imaginary-tool (installed by a setup that never ran)')
    expect(listed.output).toContain('skipped: capability-skip.fixture.ts > is skipped on purpose')
    expect(listed.summary).toBe('tests: 1 passed, 0 failed, 2 skipped')
  })

  // scripts/ci-test.sh sets ENGINE_TEST_REQUIRE_CAPABILITIES=1 and passes vitest's output through: its runs also show the
  // reporter's side of that rule, and a clean run's "0 failed" with vitest exiting 0.
  it('a skip for a missing capability fails the run when CI requires capabilities; scripts/ci-test.sh (what .ci/run runs) fails then although vitest exited 0, and passes a clean run', async () => {
    const wrapper = ['bash', join(REPO_ROOT, 'scripts', 'ci-test.sh')]
    const required = await runFixture('capability-skip.fixture.ts', {wrapper})
    expect(required.output).toContain(`failed (${REQUIRE_CAPABILITIES_ENV}=1): capability-skip.fixture.ts > needs a tool this machine lacks: missing capability imaginary-tool`)
    expect(required.summary).toBe('tests: 1 passed, 1 failed, 1 skipped')
    expect(required.code, required.output).toBe(1)
    expect(required.output).toContain('ci: the test command exited 0 but its closing line counts failures (tests: 1 passed, 1 failed, 1 skipped)')
    const clean = await runFixture('passing.fixture.ts', {wrapper})
    expect(clean.code, clean.output).toBe(0)
    expect(clean.summary).toBe('tests: 1 passed, 0 failed, 1 skipped')
  })
})
