import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'

const LONG = join(REPO_ROOT, 'test', 'fixtures', 'render', 'long.html')
// As users run it: outside development and test, oclif adds no warnings of its own.
const userEnv = {NODE_ENV: undefined}
const run = (args: string[]) => runCli(args, {env: userEnv})

// Several engine processes per test.
describe('CLI conventions', {timeout: 180_000}, () => {
  const scratch = useScratchDir('engine-conventions-')

  it('-v prints the version and -h the help', async () => {
    const version = await run(['-v'])
    expect(version.code).toBe(0)
    expect(version.stdout).toMatch(/^html-video-engine\/\d+\.\d+\.\d+ /)
    const help = await run(['render', '-h'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/--quality=<option>[\s\S]*<options: draft\|standard\|high>/)
    expect(help.stdout).toMatch(/--video-frame-format=<option>[\s\S]*<options: auto\|jpg\|png>/)
  })

  it('usage errors are in our voice, printed once (exit 1 for a bad value, 2 for an unknown flag or a missing argument); with --json they are one JSON object on stdout', async () => {
    const quality = await run(['render', LONG, '--quality', 'best'])
    expect(quality).toMatchObject({code: 1, stdout: '', stderr: 'error [INVALID_FLAG]: --quality must be draft, standard or high, not "best"\n'})

    const json = await run(['render', LONG, '--quality', 'best', '--json'])
    expect(json.code).toBe(1)
    expect(json.stderr).toBe('')
    expect(JSON.parse(json.stdout)).toEqual({
      type: 'error',
      error: {code: 'INVALID_FLAG', message: '--quality must be draft, standard or high, not "best"', details: {flag: '--quality', value: 'best', choices: ['draft', 'standard', 'high']}},
    })

    expect(await run(['render', LONG, '--colour', 'red'])).toMatchObject({code: 2, stderr: 'error [INVALID_FLAG]: --colour is not a flag of this command: see engine render --help\n'})
    expect(await run(['render'])).toMatchObject({code: 2, stderr: 'error [INVALID_FLAG]: missing the composition argument: see engine render --help\n'})
    // A companion's command (packages/lambda, loaded in this checkout whatever NODE_ENV says) the same way.
    const missingJson = await run(['lambda', 'render', '--json'])
    expect(missingJson.code).toBe(2)
    expect(JSON.parse(missingJson.stdout).error.message).toMatch(/^missing the .* argument: see engine lambda render --help$/)
    // oclif adds a note after the arguments when a flag takes several values: it is not an argument.
    expect(await run(['lambda', 'policies'])).toMatchObject({code: 2, stderr: 'error [INVALID_FLAG]: missing the kind argument: see engine lambda policies --help\n'})
  })

  it('a failed render prints its error once, also under the progress display', async () => {
    const result = await run(['render', LONG, '--format', 'avi', '-o', join(scratch(), 'x.avi')])
    expect(result.code).toBe(1)
    expect(result.stderr.match(/not a known format/g)).toHaveLength(1)
    expect(result.stderr).toMatch(/error \[INVALID_FLAG\]: --format: "avi" is not a known format/)
  })

  it('Ctrl-C (SIGINT) during a render with the progress display (on stderr) exits 130 with one CANCELLED error and no output', async () => {
    const output = join(scratch(), 'interrupted.mp4')
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'render', LONG, '--workers', '1', '-o', output], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, ...userEnv}})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    const capturing = new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk) => {
        stderr += chunk
        if (/frame \d+\//.test(stderr)) resolve()
      }),
    )
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    await capturing
    child.kill('SIGINT')
    expect(await exited).toBe(130)
    expect(stderr.match(/error \[CANCELLED\]/g)).toHaveLength(1)
    expect(stderr).toMatch(/error \[CANCELLED\]: the render was interrupted \(SIGINT\)/)
    expect(existsSync(output)).toBe(false)
    expect(stdout).toBe('')
  })
})
