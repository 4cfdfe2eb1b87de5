import {mkdtemp, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {near, pixelAt, probeVideoStream, ffprobe} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {writePlugin} from '../support/write-plugin.js'
import {spawnServe} from '../server/support/spawn-serve.js'

const EXAMPLE = join(REPO_ROOT, 'examples', 'format-plugin')
const COLOR = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')


// Every test runs several engine processes one after another.
describe('plugins through `engine plugins link` (private ENGINE_DATA_DIR)', {timeout: 240_000}, () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  const cli = (args: string[]) => runCli(args, {env})

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-plugins-'))
    env = {ENGINE_DATA_DIR: join(dir, 'data'), ENGINE_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config')}
    const linked = await cli(['plugins', 'link', EXAMPLE, '--no-install'])
    expect(linked.code, linked.stderr).toBe(0)
  })
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('the example plugin is listed, shown in doctor, and renders --format mkv', async () => {
    expect((await cli(['plugins'])).stdout).toMatch(/engine-plugin-mkv 1\.0\.0 \(link\)/)
    // Help of a command that lists formats runs the plugins' format hooks, contained: the plugin's format is listed.
    const help = await cli(['render', '--help'])
    expect(help.stdout).toMatch(/<options: mp4\|mov\|webm\|gif\|png-sequence\|hls\|mkv>/)
    const doctor = await cli(['doctor'])
    expect(doctor.stdout).toMatch(/encoders for mp4, mov, webm, gif, png-sequence, hls, mkv/)

    const output = join(dir, 'red.mkv')
    const render = await cli(['render', COLOR, '--format', 'mkv', '--variables', '{"color":"#ff0000"}', '-o', output, '--quiet'])
    expect(render.code, render.stderr).toBe(0)
    expect(render.stderr).toBe('')
    const format = (await ffprobe(output, ['-show_format'])).format as {format_name: string}
    expect(format.format_name).toMatch(/matroska/)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', width: 320, height: 180, nb_read_frames: '30'})
    expect(near(await pixelAt(output, 15, 160, 150), {r: 255, g: 0, b: 0})).toBe(true)

    // The format's declared capabilities are enforced when the render is planned.
    const gpu = await cli(['render', COLOR, '--format', 'mkv', '--gpu', '-o', join(dir, 'gpu.mkv'), '--quiet'])
    expect(gpu.code).toBe(1)
    expect(gpu.stderr).toBe('error [INVALID_FLAG]: --gpu: the mkv format has no hardware encoder; drop --gpu, or use a format that supports it (such as mp4)\n')
  })

  it('engine serve renders a plugin format', async () => {
    const serve = await spawnServe(['--root', join(REPO_ROOT, 'test', 'server', 'fixtures')], env)
    try {
      const output = join(dir, 'served.mkv')
      const result = await cli(['render', COLOR, '--server', serve.url, '--format', 'mkv', '--frames', '0-5', '--variables', '{"color":"#0000ff"}', '-o', output, '--quiet'])
      expect(result.code, result.stderr).toBe(0)
      expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', nb_read_frames: '6'})
      expect(near(await pixelAt(output, 0, 160, 150), {r: 0, g: 0, b: 255})).toBe(true)
    } finally {
      await serve.stop()
    }
  })

  it('a plugin whose hook throws, or that takes a taken name, is a warning naming it; the others still work', async () => {
    const broken = await writePlugin(dir, 'engine-plugin-broken', {'engine:formats': "throw new Error('the plugin could not start')\n"})
    const duplicate = await writePlugin(dir, 'engine-plugin-dup', {
      'engine:formats': 'export default async ({api}) => [{name: "mkv", description: "a second mkv", alpha: false, audio: "none", evenDimensions: false, rateControl: false, gpu: false, worker: "frame-files", frameFileName: (i) => `${i}.jpg`, frameFilePattern: /^\\d+\\.jpg$/, requiredEncoders: () => []}]\n',
    })
    for (const root of [broken, duplicate]) expect((await cli(['plugins', 'link', root, '--no-install'])).code).toBe(0)

    const output = join(dir, 'after.mkv')
    const render = await cli(['render', COLOR, '--format', 'mkv', '--frames', '0-5', '-o', output, '--quiet'])
    expect(render.code, render.stderr).toBe(0)
    const warnings = render.stderr.replaceAll(/\s*›\s*/g, ' ')
    expect(warnings).toMatch(/plugin engine-plugin-broken: loading its engine:formats hook \(\.\/engine-formats\.js\) failed at \S+engine-plugin-broken\/engine-formats\.js:1:7: the plugin could not start; its formats are not available/)
    expect(warnings).toMatch(/format "mkv" from plugin engine-plugin-dup is refused: plugin engine-plugin-mkv already registers a format with that name/)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', nb_read_frames: '6'})

    for (const name of ['engine-plugin-broken', 'engine-plugin-dup']) expect((await cli(['plugins', 'uninstall', name])).code).toBe(0)
    expect((await cli(['render', COLOR, '--format', 'mkv', '--frames', '0-1', '-o', output, '--quiet'])).stderr).toBe('')
  })

  it('after uninstall the format is gone, with the usual unknown-format error', async () => {
    expect((await cli(['plugins', 'uninstall', 'engine-plugin-mkv'])).code).toBe(0)
    const output = join(dir, 'gone.mkv')
    const render = await cli(['render', COLOR, '--format', 'mkv', '-o', output, '--quiet'])
    expect(render.code).toBe(1)
    expect(render.stderr).toMatch(/--format: "mkv" is not a known format; did you mean mov\? use one of mp4, mov, webm, gif, png-sequence, hls\n$/)
    expect(await readdir(dir)).not.toContain('gone.mkv')
  })
})
