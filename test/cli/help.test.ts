import {describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'

describe('engine --help', () => {
  it('lists every command of the spec', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    const commands = ['render', 'lint', 'doctor', 'preview', 'benchmark', 'serve', 'browser install', 'lambda deploy', 'lambda sites create', 'lambda render', 'lambda render-batch', 'lambda progress']
    for (const command of commands) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\s`, 'm'))
    }
  })

  it('says "not implemented yet" and exits 2 for what a later release builds (HDR output)', async () => {
    const result = await runCli(['render', 'examples/hello/index.html', '--hdr'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/error \[NOT_IMPLEMENTED\]: --hdr is not implemented yet/)
  })

  it('documents the render flags', async () => {
    const result = await runCli(['render', '--help'])
    for (const flag of ['--output', '--format', '--fps', '--gif-loop', '--quality', '--crf', '--video-bitrate', '--workers', '--variables', '--variables-file', '--strict-variables', '--gpu', '--browser-gpu', '--hdr', '--sdr', '--docker', '--quiet', '--json', '--batch', '--batch-concurrency', '--batch-fail-fast']) {
      expect(result.stdout).toContain(flag)
    }
  })
})
