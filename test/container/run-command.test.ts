import {describe, expect, it} from 'vitest'
import {imageBuildArgs} from '../../src/lib/container/container-image.js'
import {renderMounts, templateOutputDir} from '../../src/lib/container/container-mounts.js'
import {pathMapping} from '../../src/lib/container/container-paths.js'
import {containerRunArgs, type ContainerRunSpec} from '../../src/lib/container/container-run-command.js'
import {isRootless} from '../../src/lib/container/detect-container-runtime.js'
import {innerRenderArgs} from '../../src/lib/container/inner-render-args.js'
import {pickContainerRuntime} from '../../src/lib/container/pick-container-runtime.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'

const posix = pathMapping('linux')

function spec(overrides: Partial<ContainerRunSpec> = {}): ContainerRunSpec {
  return {
    runtime: {name: 'docker', rootless: false},
    image: 'engine-render:1.2.3',
    name: 'engine-render-1-abc',
    mounts: [
      {source: '/home/ada/project', target: '/home/ada/project', readOnly: true},
      {source: '/home/ada/project/renders', target: '/home/ada/project/renders', readOnly: false},
    ],
    env: {HOME: '/tmp', ENGINE_CACHE_DIR: '/tmp/engine-cache'},
    user: {uid: 1000, gid: 1000},
    workdir: '/tmp',
    command: ['render', '/home/ada/project/index.html', '--json'],
    ...overrides,
  }
}

/** The value after `flag`, for every occurrence. */
const valuesOf = (args: string[], flag: string) => args.flatMap((arg, index) => (arg === flag ? [args[index + 1]] : []))

describe('the container run command', () => {
  it('docker: host uid:gid, amd64, shared memory, init, no pull, mounts, environment, then the image and the engine command', () => {
    expect(containerRunArgs(spec())).toEqual([
      'run',
      '--rm',
      '--init',
      '--pull',
      'never',
      '--name',
      'engine-render-1-abc',
      '--platform',
      'linux/amd64',
      '--shm-size',
      '2g',
      '--user',
      '1000:1000',
      '--security-opt',
      'label=disable',
      '--workdir',
      '/tmp',
      '--mount',
      'type=bind,source=/home/ada/project,target=/home/ada/project,readonly=true',
      '--mount',
      'type=bind,source=/home/ada/project/renders,target=/home/ada/project/renders',
      '--env',
      'HOME=/tmp',
      '--env',
      'ENGINE_CACHE_DIR=/tmp/engine-cache',
      'engine-render:1.2.3',
      'render',
      '/home/ada/project/index.html',
      '--json',
    ])
  })

  it('rootless docker runs as container root, which is the host user', () => {
    const args = containerRunArgs(spec({runtime: {name: 'docker', rootless: true}}))
    expect(args).not.toContain('--user')
    expect(args).not.toContain('--userns')
  })

  it('rootless podman keeps the host uid with --userns keep-id; rootful podman only sets the user', () => {
    const rootless = containerRunArgs(spec({runtime: {name: 'podman', rootless: true}}))
    expect(rootless.slice(rootless.indexOf('--userns'), rootless.indexOf('--userns') + 4)).toEqual(['--userns', 'keep-id', '--user', '1000:1000'])
    const rootful = containerRunArgs(spec({runtime: {name: 'podman', rootless: false}}))
    expect(rootful).not.toContain('--userns')
    expect(valuesOf(rootful, '--user')).toEqual(['1000:1000'])
  })

  it('without a host user (Windows) sets none; a custom shared memory size is kept', () => {
    const args = containerRunArgs(spec({user: undefined, shmSize: '4g'}))
    expect(args).not.toContain('--user')
    expect(valuesOf(args, '--shm-size')).toEqual(['4g'])
  })

  it('refuses a path with a comma, which --mount cannot express', () => {
    const mounts = [{source: '/home/ada/a,b', target: '/home/ada/a,b', readOnly: true}]
    expect(() => containerRunArgs(spec({mounts}))).toThrow(/\/home\/ada\/a,b .*contains a comma/)
  })
})

describe('the mounts of a container render', () => {
  const input = {projectDir: '/p', outputDir: '/p/renders', inputFiles: [] as string[], internalFiles: []}

  it('mounts the project read-only and an output directory inside it writable, parent first', () => {
    expect(renderMounts(input, posix)).toEqual([
      {source: '/p', target: '/p', readOnly: true},
      {source: '/p/renders', target: '/p/renders', readOnly: false},
    ])
  })

  it('mounts the project once, writable, when the output goes into the project directory or above it', () => {
    expect(renderMounts({...input, outputDir: '/p'}, posix)).toEqual([{source: '/p', target: '/p', readOnly: false}])
    expect(renderMounts({...input, projectDir: '/p/site', outputDir: '/p'}, posix)).toEqual([{source: '/p', target: '/p', readOnly: false}])
  })

  it('mounts an output directory elsewhere, input files outside both, and the variables at a fixed path', () => {
    const mounts = renderMounts(
      {
        projectDir: '/p',
        outputDir: '/out/renders',
        inputFiles: ['/p/rows.json', '/data/rows.json'],
        internalFiles: [{source: '/tmp/engine-container-x/variables.json', target: '/engine/input/variables.json'}],
      },
      posix,
    )
    expect(mounts).toEqual([
      {source: '/p', target: '/p', readOnly: true},
      {source: '/data/rows.json', target: '/data/rows.json', readOnly: true},
      {source: '/out/renders', target: '/out/renders', readOnly: false},
      {source: '/tmp/engine-container-x/variables.json', target: '/engine/input/variables.json', readOnly: true},
    ])
  })

  it('a batch writes under the template directory before its first placeholder', () => {
    expect(templateOutputDir('/p/renders/card-{index}.mp4')).toBe('/p/renders')
    expect(templateOutputDir('/p/renders/{city}/card.mp4')).toBe('/p/renders')
    expect(templateOutputDir('/p/renders/card.mp4')).toBe('/p/renders')
  })

  it('Windows paths live under /host/<drive> in the container and map back', () => {
    const windows = pathMapping('win32')
    expect(windows.toContainer('C:\\Users\\ada\\project')).toBe('/host/c/Users/ada/project')
    expect(windows.toHost('/host/c/Users/ada/project/renders/a.mp4')).toBe('C:\\Users\\ada\\project\\renders\\a.mp4')
    expect(() => windows.toContainer('\\\\server\\share\\x')).toThrow(/drive letter/)
  })
})

describe('the engine command inside the container', () => {
  it('passes the resolved options, the deterministic profile, JSON events and no host GPU', () => {
    const options = resolveRenderOptions({format: 'webm', fps: '30000/1001', quality: 'high', crf: 20, workers: 3, strictVariables: true, browserPath: '/opt/chrome'})
    const args = innerRenderArgs({composition: '/p/index.html', options, output: '/p/renders/a.webm', variablesFile: '/engine/input/variables.json'})
    expect(args.slice(0, 2)).toEqual(['render', '/p/index.html'])
    expect(args).toEqual(expect.arrayContaining(['--json', '--no-browser-gpu', '--strict-variables']))
    expect(valuesOf(args, '--profile')).toEqual(['deterministic'])
    expect(valuesOf(args, '--output')).toEqual(['/p/renders/a.webm'])
    expect(valuesOf(args, '--format')).toEqual(['webm'])
    expect(valuesOf(args, '--fps')).toEqual(['30000/1001'])
    expect(valuesOf(args, '--quality')).toEqual(['high'])
    expect(valuesOf(args, '--crf')).toEqual(['20'])
    expect(valuesOf(args, '--workers')).toEqual(['3'])
    expect(valuesOf(args, '--variables-file')).toEqual(['/engine/input/variables.json'])
    for (const hostOnly of ['--browser-path', '--gpu', '--docker', '--batch', '--resume']) expect(args).not.toContain(hostOnly)
  })

  it('passes a batch with its format, concurrency, fail-fast and resume', () => {
    const options = resolveRenderOptions({batch: 'rows.csv', batchConcurrency: 2, batchFailFast: true})
    const args = innerRenderArgs({composition: '/p/index.html', options, output: '/p/renders/{index}.mp4', batch: {path: '/p/rows.csv', format: 'csv'}, resume: true})
    expect(valuesOf(args, '--batch')).toEqual(['/p/rows.csv'])
    expect(valuesOf(args, '--batch-format')).toEqual(['csv'])
    expect(valuesOf(args, '--batch-concurrency')).toEqual(['2'])
    expect(args).toEqual(expect.arrayContaining(['--batch-fail-fast', '--resume']))
    expect(args).not.toContain('--no-cache')
    expect(innerRenderArgs({composition: '/p/index.html', options: {...options, cache: false}, output: '/p/a.mp4'})).toContain('--no-cache')
  })
})

describe('the image build command', () => {
  it('tags by engine version for linux/amd64; podman writes the Docker image format', () => {
    const docker = imageBuildArgs({runtime: 'docker', tag: 'engine-render:1.2.3', version: '1.2.3', contextDir: '/tmp/ctx'})
    expect(docker).toEqual([
      'build',
      '--platform',
      'linux/amd64',
      '--tag',
      'engine-render:1.2.3',
      '--build-arg',
      'ENGINE_VERSION=1.2.3',
      '--label',
      'org.opencontainers.image.version=1.2.3',
      '--label',
      'engine.profile=deterministic',
      '--file',
      '/tmp/ctx/Dockerfile',
      '/tmp/ctx',
    ])
    const podman = imageBuildArgs({runtime: 'podman', tag: 'engine-render:1.2.3', version: '1.2.3', contextDir: '/tmp/ctx'})
    expect(valuesOf(podman, '--format')).toEqual(['docker'])
  })
})

describe('choosing the container runtime', () => {
  const docker = {name: 'docker' as const, clientVersion: 'Docker version 28.2.2', engineReachable: true}
  const podman = {name: 'podman' as const, clientVersion: 'podman version 5.4.0', engineReachable: true, rootless: true}

  it('prefers docker, or the one ENGINE_CONTAINER_RUNTIME names', () => {
    expect(pickContainerRuntime([docker, podman]).name).toBe('docker')
    expect(pickContainerRuntime([docker, podman], {preferred: 'podman'}).name).toBe('podman')
    expect(pickContainerRuntime([{...docker, engineReachable: false}, podman], {preferred: 'docker'}).name).toBe('podman')
  })

  it('says what to install when there is none, and what to start when no engine answers', () => {
    const none = catchError(() => pickContainerRuntime([]))
    expect(isEngineError(none, 'CONTAINER_UNAVAILABLE')).toBe(true)
    expect(none.message).toMatch(/neither docker nor podman is installed: install Docker .* or podman/)
    const down = catchError(() => pickContainerRuntime([{...docker, engineReachable: false, problem: 'Cannot connect to the Docker daemon'}]))
    expect(down.message).toMatch(/docker is installed \(Docker version 28.2.2\) but cannot reach its engine \(Cannot connect to the Docker daemon\)\. Start the engine/)
  })

  it('refuses an unknown runtime name', () => {
    expect(() => pickContainerRuntime([docker], {preferred: 'lxc'})).toThrow(/ENGINE_CONTAINER_RUNTIME: "lxc" is not a container runtime/)
  })

  it('reads rootlessness from the info of either runtime', () => {
    expect(isRootless('docker', JSON.stringify({SecurityOptions: ['name=seccomp,profile=builtin', 'name=rootless']}))).toBe(true)
    expect(isRootless('docker', JSON.stringify({SecurityOptions: ['name=seccomp,profile=builtin']}))).toBe(false)
    expect(isRootless('podman', JSON.stringify({host: {security: {rootless: true}}}))).toBe(true)
    expect(isRootless('podman', 'not json')).toBe(false)
  })
})

function catchError(run: () => unknown): Error {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected an error')
}
