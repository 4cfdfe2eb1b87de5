import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

// Runs the built CLI (`npm run build` first), the way a user does.
const repo = join(import.meta.dirname, '../..')
const fixtures = 'test/fixtures/compositions/lint'

function engineLint(...args: string[]) {
  const result = spawnSync(process.execPath, ['bin/run.js', 'lint', ...args], {cwd: repo, encoding: 'utf8'})
  return {status: result.status, stdout: result.stdout, stderr: result.stderr}
}

describe('engine lint', () => {
  it('exits 0 and says so for a clean composition', () => {
    const {status, stdout} = engineLint('examples/hello/index.html')
    expect(status).toBe(0)
    expect(stdout).toBe('examples/hello/index.html: no problems found\n')
  })

  it('prints file:line, severity, code and message per finding, then a summary, and exits 1 on errors', () => {
    const {status, stdout} = engineLint(`${fixtures}/start-unknown-reference.html`)
    expect(status).toBe(1)
    expect(stdout.split('\n')).toEqual([
      expect.stringMatching(/^test\/fixtures\/compositions\/lint\/start-unknown-reference\.html:6 {2}error {2}start-unknown-reference {2}data-start="nowhere"/),
      `${fixtures}/start-unknown-reference.html: 1 error, 0 warnings`,
      '',
    ])
  })

  it('exits 0 when there are only warnings', () => {
    const {status, stdout} = engineLint(`${fixtures}/variable-unknown-type.html`)
    expect(status).toBe(0)
    expect(stdout).toContain('0 errors, 1 warning')
  })

  it('prints {file, findings, errors, warnings} with --json', () => {
    const {status, stdout} = engineLint(`${fixtures}/background-with-alpha.html`, '--json', '--format', 'webm')
    expect(status).toBe(0)
    const report = JSON.parse(stdout)
    expect(report).toEqual({
      file: `${fixtures}/background-with-alpha.html`,
      findings: [expect.objectContaining({code: 'background-with-alpha', severity: 'warning', line: 9, file: `${fixtures}/background-with-alpha.html`})],
      errors: 0,
      warnings: 1,
    })
    // An opaque format does not care about page backgrounds.
    expect(JSON.parse(engineLint(`${fixtures}/background-with-alpha.html`, '--json', '--format', 'mp4').stdout).findings).toEqual([])
  })

  it('fails clearly for a missing file', () => {
    const {status, stderr} = engineLint(`${fixtures}/missing.html`)
    expect(status).toBe(1)
    expect(stderr).toMatch(/COMPOSITION_NOT_FOUND.*missing\.html does not exist/)
  })

  it('rejects an unknown --format by naming the formats', () => {
    const {status, stderr} = engineLint('examples/hello/index.html', '--format', 'avi')
    expect(status).toBe(1)
    expect(stderr).toMatch(/--format: "avi" is not a known format/)
  })
})
