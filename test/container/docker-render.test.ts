import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {cp, mkdir, readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {imageTag} from '../../src/lib/container/container-image.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../determinism/support.js'
import {fakeRuntime} from './support/fake-runtime.js'
import {ffprobe, probeVideoStream} from '../support/media.js'
import {PROCESSES} from '../support/timeouts.js'

const SWATCH = join(REPO_ROOT, 'test', 'fixtures', 'render', 'swatch.html')
const LONG = join(REPO_ROOT, 'test', 'fixtures', 'render', 'long.html')
const THROWS = join(REPO_ROOT, 'test', 'fixtures', 'render', 'throws.html')
const IMAGE = imageTag()
const uid = process.getuid!()
const gid = process.getgid!()

function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** The value after `flag` in an argument list, for every occurrence. */
function valuesOf(args: string[], flag: string): string[] {
  return args.flatMap((arg, index) => (arg === flag ? [args[index + 1]] : []))
}

// No container engine runs on these machines: every test below drives a fake runtime, a stand-in
// docker/podman client (support/fake-runtime.mjs) that records its arguments and runs the engine on
// the host. What is checked is the client side: the commands engine sends and how it relays them.
describe('engine render --docker with a fake runtime (no image is built, no container runs)', PROCESSES, () => {
  const scratch = useScratchDir()

  it('fails before writing anything when neither docker nor podman is installed', async () => {
    const empty = join(scratch(), 'no-runtime-bin')
    await mkdir(empty)
    const output = join(scratch(), 'no-runtime', 'out.mp4')
    const result = await runCli(['render', SWATCH, '--docker', '-o', output], {env: {PATH: empty}})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('error [CONTAINER_UNAVAILABLE]: --docker renders in a container, but neither docker nor podman is installed')
    expect(result.stderr).toContain('install Docker (https://docs.docker.com/engine/install/) or podman')
    expect(existsSync(join(scratch(), 'no-runtime'))).toBe(false)
  })

  it('fails before writing anything when the fake runtime cannot reach its engine, saying what to start', async () => {
    const runtime = await fakeRuntime(join(scratch(), 'down'), 'docker', {FAKE_RUNTIME_ENGINE_DOWN: '1'})
    const output = join(scratch(), 'down-out', 'out.mp4')
    const result = await runCli(['render', SWATCH, '--docker', '--json', '-o', output], {env: runtime.env})
    expect(result.code).toBe(1)
    const [error] = jsonLines(result.stdout)
    expect(error).toMatchObject({type: 'error', error: {code: 'CONTAINER_UNAVAILABLE'}})
    const message = (error.error as {message: string}).message
    expect(message).toContain('docker is installed (docker version 99.0.0-fake) but cannot reach its engine (Cannot connect to the docker daemon')
    expect(message).toContain('Start the engine')
    expect(existsSync(join(scratch(), 'down-out'))).toBe(false)
    expect((await runtime.calls()).map((call) => call[0])).not.toContain('run')
  })

  it('asks the fake runtime to build the image on first use, then to run the render, and relays the events', async () => {
    const runtime = await fakeRuntime(join(scratch(), 'first-use'), 'docker', {FAKE_RUNTIME_IMAGE: 'missing'})
    const output = join(scratch(), 'first-use-out', 'frames')
    const result = await runCli(
      ['render', SWATCH, '--docker', '--json', '--format', 'png-sequence', '--fps', '10', '--variables', '{"fill": "#0000ff"}', '-o', output],
      {env: runtime.env},
    )
    expect(result.code, result.stderr).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events[0]).toMatchObject({type: 'warning', code: 'container-image-build'})
    expect(events.find((event) => event.type === 'start')).toMatchObject({output, variables: {fill: '#0000ff'}, browser: {beginFrame: true}})
    expect(events.some((event) => event.type === 'progress')).toBe(true)
    expect(events.at(-1)).toMatchObject({type: 'done', output, totalFrames: 10})
    expect((await readdir(output)).filter((name) => name.endsWith('.png'))).toHaveLength(10)

    const calls = await runtime.calls()
    const build = calls.find((call) => call[0] === 'build')!
    expect(valuesOf(build, '--tag')).toEqual([IMAGE])
    expect(valuesOf(build, '--platform')).toEqual(['linux/amd64'])
    const run = calls.find((call) => call[0] === 'run')!
    expect(calls.indexOf(build)).toBeLessThan(calls.indexOf(run))
    expect(valuesOf(run, '--user')).toEqual([`${uid}:${gid}`])
    expect(valuesOf(run, '--platform')).toEqual(['linux/amd64'])
    expect(valuesOf(run, '--shm-size')).toEqual(['2g'])
    // The project (the working directory) read-only, the output directory writable, the variables as a file.
    const mounts = valuesOf(run, '--mount')
    expect(mounts).toHaveLength(3)
    expect(mounts).toEqual(
      expect.arrayContaining([
        `type=bind,source=${REPO_ROOT},target=${REPO_ROOT},readonly=true`,
        expect.stringMatching(/^type=bind,source=.*variables\.json,target=\/engine\/input\/variables\.json,readonly=true$/),
        `type=bind,source=${join(scratch(), 'first-use-out')},target=${join(scratch(), 'first-use-out')}`,
      ]),
    )
    const inner = run.slice(run.indexOf(IMAGE) + 1)
    expect(inner.slice(0, 2)).toEqual(['render', SWATCH])
    expect(inner).toEqual(expect.arrayContaining(['--json', '--no-browser-gpu', '--variables-file', '/engine/input/variables.json']))
    expect(valuesOf(inner, '--profile')).toEqual(['deterministic'])
    expect(valuesOf(inner, '--output')).toEqual([output])
  })

  it("hands the user's plugins to the engine the fake runtime runs: a format from a linked plugin renders", async () => {
    const runtime = await fakeRuntime(join(scratch(), 'plugins'), 'docker')
    // The example plugin, linked from outside the project so that it needs a mount of its own.
    const plugin = join(scratch(), 'plugin-mkv')
    await cp(join(REPO_ROOT, 'examples', 'format-plugin'), plugin, {recursive: true})
    const data = {ENGINE_DATA_DIR: join(scratch(), 'plugin-data'), ENGINE_CONFIG_DIR: join(scratch(), 'plugin-config')}
    const linked = await runCli(['plugins', 'link', plugin, '--no-install'], {env: data})
    expect(linked.code, linked.stderr).toBe(0)
    const output = join(scratch(), 'plugin-out', 'swatch.mkv')
    const result = await runCli(['render', SWATCH, '--docker', '--format', 'mkv', '--fps', '10', '-o', output], {env: {...runtime.env, ...data}})
    expect(result.code, result.stderr).toBe(0)
    expect((await ffprobe(output, ['-show_format'])).format).toMatchObject({format_name: 'matroska,webm'})
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', nb_read_frames: '10'})
    const run = (await runtime.calls()).find((call) => call[0] === 'run')!
    expect(valuesOf(run, '--mount')).toContain(`type=bind,source=${plugin},target=${plugin},readonly=true`)
    const dataDir = valuesOf(run, '--env').find((value) => value.startsWith('ENGINE_DATA_DIR='))!.slice('ENGINE_DATA_DIR='.length)
    expect(valuesOf(run, '--mount')).toContain(`type=bind,source=${dataDir},target=${dataDir},readonly=true`)
  })

  it('reuses the image the fake runtime reports, and reports the error of the render it ran with its exit code, leaving nothing', async () => {
    const runtime = await fakeRuntime(join(scratch(), 'inner-error'), 'docker')
    const output = join(scratch(), 'inner-error-out', 'throws.mp4')
    const result = await runCli(['render', THROWS, '--docker', '-o', output], {env: runtime.env})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[PAGE_ERROR\]: .*the title font failed to load/)
    expect(existsSync(join(scratch(), 'inner-error-out'))).toBe(false)
    expect((await runtime.calls()).map((call) => call[0])).not.toContain('build')
  })

  it('keeps the exit code of a fake container that dies without an engine error', async () => {
    const runtime = await fakeRuntime(join(scratch(), 'killed'), 'docker', {FAKE_RUNTIME_RUN_EXIT: '137'})
    const result = await runCli(['render', SWATCH, '--docker', '-o', join(scratch(), 'killed-out', 'x.mp4')], {env: runtime.env})
    expect(result.code).toBe(137)
    expect(result.stderr).toContain(`error [CONTAINER_FAILED]: the render container (${IMAGE}) failed: it was killed, most often for running out of memory`)
    expect(existsSync(join(scratch(), 'killed-out'))).toBe(false)
  })

  it('asks the fake runtime to stop its container when interrupted, reports CANCELLED and leaves nothing', async () => {
    const runtime = await fakeRuntime(join(scratch(), 'interrupted'), 'docker')
    const output = join(scratch(), 'interrupted-out', 'frames')
    // 900 frames (30 s at 30 fps): the render inside is still running when the signal comes, however loaded the machine.
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'render', LONG, '--docker', '--json', '--format', 'png-sequence', '-o', output], {
      env: {...process.env, ...runtime.env},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk
        if (stdout.includes('"type":"progress"')) resolve()
      }),
    )
    child.kill('SIGINT')
    // Interrupted by the user: the shell convention 128 + SIGINT, as for a local render.
    expect(await exited).toBe(130)
    expect(jsonLines(stdout).at(-1)).toMatchObject({type: 'error', error: {code: 'CANCELLED'}})
    const kill = (await runtime.calls()).find((call) => call[0] === 'kill')
    expect(kill?.[1]).toMatch(/^engine-render-\d+-[0-9a-f]{8}$/)
    expect(existsSync(join(scratch(), 'interrupted-out'))).toBe(false)
  })

  it('with a fake rootless podman, asks to keep the host user id inside and to build a Docker-format image', async () => {
    const runtime = await fakeRuntime(join(scratch(), 'podman'), 'podman', {FAKE_RUNTIME_IMAGE: 'missing', FAKE_RUNTIME_RUN_EXIT: '3'})
    const result = await runCli(['render', SWATCH, '--docker', '-o', join(scratch(), 'podman-out', 'x.mp4')], {env: runtime.env})
    expect(result.code).toBe(3)
    const calls = await runtime.calls()
    expect(valuesOf(calls.find((call) => call[0] === 'build')!, '--format')).toEqual(['docker'])
    const run = calls.find((call) => call[0] === 'run')!
    expect(run.slice(run.indexOf('--userns'), run.indexOf('--userns') + 4)).toEqual(['--userns', 'keep-id', '--user', `${uid}:${gid}`])
  })

  it('renders a batch through the fake runtime: rows, manifest and batch events', async () => {
    const runtime = await fakeRuntime(join(scratch(), 'batch'), 'docker')
    const rows = join(scratch(), 'batch-input', 'rows.json')
    await mkdir(join(scratch(), 'batch-input'))
    await writeFile(rows, JSON.stringify([{fill: '#ff0000'}, {fill: '#00ffff'}]))
    const template = join(scratch(), 'batch-out', 'swatch-{index}')
    const result = await runCli(['render', SWATCH, '--docker', '--json', '--batch', rows, '--format', 'png-sequence', '--fps', '5', '-o', template], {
      env: runtime.env,
    })
    expect(result.code, result.stderr).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events.at(-1)).toMatchObject({type: 'batch-done', counts: {completed: 2}, manifest: join(scratch(), 'batch-out', 'manifest.json')})
    const manifest = JSON.parse(await readFile(join(scratch(), 'batch-out', 'manifest.json'), 'utf8')) as {rows: Array<{status: string}>}
    expect(manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed'])
    expect(await readdir(join(scratch(), 'batch-out', 'swatch-1'))).toHaveLength(5)
    const run = (await runtime.calls()).find((call) => call[0] === 'run')!
    expect(valuesOf(run, '--mount')).toContain(`type=bind,source=${rows},target=${rows},readonly=true`)
  })
})

describe('engine doctor with a fake runtime', PROCESSES, () => {
  const scratch = useScratchDir()

  it('reports which container runtime it found (a fake podman) and whether the image is built', async () => {
    const runtime = await fakeRuntime(scratch(), 'podman', {FAKE_RUNTIME_IMAGE: 'missing'})
    const result = await runCli(['doctor', '--json'], {env: runtime.env})
    const report = JSON.parse(result.stdout) as {checks: Array<{name: string; status: string; summary: string}>}
    const check = report.checks.find((entry) => entry.name === 'container runtime')!
    expect(check.status).toBe('ok')
    expect(check.summary).toBe(
      `podman (rootless): podman version 99.0.0-fake; image ${IMAGE} is not built yet (the first --docker render builds it; \`engine docker build\` does it ahead)`,
    )
  })
})
