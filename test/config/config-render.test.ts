import {existsSync} from 'node:fs'
import {copyFile, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const SWATCH = join(REPO_ROOT, 'test/fixtures/render/swatch.html')

describe('engine render driven by a config file', PROCESSES, () => {
  let project: string

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'engine-config-render-'))
    await writeFile(join(project, 'package.json'), '{"private": true}')
    await copyFile(SWATCH, join(project, 'swatch.html'))
    await writeFile(join(project, 'vars.json'), '{"fill": "#ff0000"}')
    await writeFile(join(project, 'engine.config.json'), JSON.stringify({fps: 8, quality: 'draft', workers: 1, variablesFile: 'vars.json'}))
  })

  afterAll(async () => {
    await rm(project, {recursive: true, force: true})
  })

  it('takes fps and variables from the config file', async () => {
    const result = await runCli(['render', 'swatch.html', '-o', 'from-config.mp4', '--quiet'], {cwd: project})
    expect(result.code, result.stderr).toBe(0)
    const stream = await probeVideoStream(join(project, 'from-config.mp4'))
    expect(stream.r_frame_rate).toBe('8/1')
    expect(Number(stream.nb_read_frames)).toBe(8)
    expect(near(await pixelAt(join(project, 'from-config.mp4'), 4, 80, 90), {r: 255, g: 0, b: 0})).toBe(true)
  })

  it('lets a flag override the config file, key by key', async () => {
    const result = await runCli(['render', 'swatch.html', '-o', 'overridden.mp4', '--fps', '5', '--variables', '{"fill": "#0000ff"}', '--quiet'], {cwd: project})
    expect(result.code, result.stderr).toBe(0)
    const stream = await probeVideoStream(join(project, 'overridden.mp4'))
    expect(stream.r_frame_rate).toBe('5/1')
    expect(Number(stream.nb_read_frames)).toBe(5)
    expect(near(await pixelAt(join(project, 'overridden.mp4'), 2, 80, 90), {r: 0, g: 0, b: 255})).toBe(true)
  })

  it('refuses a config value that only a render would trip over, naming the file and the key, and writes nothing', async () => {
    const broken = await mkdtemp(join(project, 'broken-'))
    await writeFile(join(broken, 'package.json'), '{}')
    await writeFile(join(broken, 'engine.config.json'), '{"fps": "30/0"}')
    const result = await runCli(['render', join(project, 'swatch.html'), '-o', 'never.mp4'], {cwd: broken})
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain(`${join(broken, 'engine.config.json')}: key "fps": "30/0" has a zero denominator`)
    expect(existsSync(join(broken, 'never.mp4'))).toBe(false)
  })
})
