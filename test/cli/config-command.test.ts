import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {probeVideoStream} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'

const COLOR = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')

interface Effective {
  file: string | null
  options: Record<string, {value: unknown; source: string; flag: string}>
  environment: Record<string, string>
}

// A few engine processes and one short render.
describe('engine config, cosmiconfig search places and --config', {timeout: 120_000}, () => {
  const scratch = useScratchDir('engine-config-command-')

  it('finds .config/enginerc.yaml and prints each value with where it came from; secrets are not printed', async () => {
    const project = join(scratch(), 'project')
    await mkdir(join(project, '.config'), {recursive: true})
    await writeFile(join(project, '.config', 'enginerc.yaml'), 'fps: 24\nquality: draft\n')
    const result = await runCli(['config', '--json'], {cwd: project, env: {ENGINE_SERVER_TOKEN: 'hunter2', ENGINE_PLUGIN_TIMEOUT: '5'}})
    expect(result.code, result.stderr).toBe(0)
    const effective = JSON.parse(result.stdout) as Effective
    expect(effective.file).toBe(join(project, '.config', 'enginerc.yaml'))
    expect(effective.options.fps).toEqual({value: 24, source: effective.file, flag: '--fps'})
    expect(effective.options.quality).toMatchObject({value: 'draft', source: effective.file})
    expect(effective.options.format).toEqual({value: 'mp4', source: 'default', flag: '--format'})
    expect(effective.environment).toMatchObject({ENGINE_SERVER_TOKEN: '(set)', ENGINE_PLUGIN_TIMEOUT: '5'})
    expect(result.stdout).not.toContain('hunter2')

    const text = await runCli(['config'], {cwd: project})
    expect(text.stdout).toMatch(/^config file: \.config\/enginerc\.yaml\n/)
    expect(text.stdout).toMatch(/\n {2}fps +24 {2}\(\.config\/enginerc\.yaml\)\n/)
  })

  it('--config names the file instead of the search, for engine config and for a render; a missing one is refused', async () => {
    const file = join(scratch(), 'ci.json')
    await writeFile(file, JSON.stringify({fps: 15}))
    const effective = JSON.parse((await runCli(['config', '--config', file, '--json'], {cwd: scratch()})).stdout) as Effective
    expect(effective.options.fps).toMatchObject({value: 15, source: file})

    const output = join(scratch(), 'fifteen.mp4')
    const render = await runCli(['render', COLOR, '--config', file, '--frames', '0-2', '-o', output, '--quiet'], {cwd: scratch()})
    expect(render.code, render.stderr).toBe(0)
    expect(await probeVideoStream(output)).toMatchObject({r_frame_rate: '15/1', nb_read_frames: '3'})

    expect(await runCli(['config', '--config', 'nope.json'], {cwd: scratch()})).toMatchObject({
      code: 1,
      stderr: 'error [INVALID_FLAG]: --config: nope.json does not exist; give the path of a config file (.json, .yaml, package.json…)\n',
    })
  })
})
