import {describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

describe('engine --help', PROCESSES, () => {
  it('lists every command of the spec', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    const commands = ['render', 'lint', 'doctor', 'preview', 'benchmark', 'serve', 'browser install', 'lambda deploy', 'lambda sites create', 'lambda render', 'lambda render-batch', 'lambda progress']
    for (const command of commands) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\s`, 'm'))
    }
  })

  it('refuses --hdr with a format other than mp4, naming the flag and the fix', async () => {
    const result = await runCli(['render', 'examples/hello/index.html', '--hdr', '--format', 'webm'])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/--hdr needs --format mp4 .*not webm/)
  })

  it('documents the render flags', async () => {
    const result = await runCli(['render', '--help'])
    for (const flag of ['--output', '--format', '--fps', '--gif-loop', '--quality', '--crf', '--video-bitrate', '--workers', '--variables', '--variables-file', '--strict-variables', '--gpu', '--browser-gpu', '--hdr', '--sdr', '--docker', '--quiet', '--json', '--batch', '--batch-concurrency', '--batch-fail-fast']) {
      expect(result.stdout).toContain(flag)
    }
  })
})
