import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {REPO_ROOT} from './run-cli.js'
import {PROCESSES} from './timeouts.js'

const FIXTURE_PROJECT = join(REPO_ROOT, 'test', 'fixtures', 'summary-report')

interface VitestRun {
  code: number | null
  summary: string | undefined
  output: string
}

/** Runs vitest in a child process on one file of the fixture project, as `npm test` would run ours. */
function runFixture(file: string): Promise<VitestRun> {
  // The child must not believe it is a worker of this run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'TEST'))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', FIXTURE_PROJECT, file], {
      cwd: FIXTURE_PROJECT,
      env: {...env, NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, output, summary: output.split('\n').find((line) => line.startsWith('tests: '))})
    })
  })
}

describe('the closing tests: line', PROCESSES, () => {
  it('says 0 failed when everything passes, and vitest agrees', async () => {
    const run = await runFixture('passing.fixture.ts')
    expect(run.code, run.output).toBe(0)
    expect(run.summary).toBe('tests: 1 passed, 0 failed, 1 skipped')
  })

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
})
