import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {PINNED_BROWSER} from '../../src/lib/browser/pinned-browser.js'
import {staticFfmpegBuild} from '../../src/lib/encode/static-ffmpeg.js'
import {canHideSystemTools, nodeOnlyPath, runBare} from '../support/bare-machine.js'
import {startDownloadMirror} from '../support/download-mirror.js'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {REPO_ROOT} from '../support/run-cli.js'

const run = promisify(execFile)
const NODE_BIN = dirname(process.execPath)

/**
 * The package as users get it: `npm pack` of this checkout (built by `npm test`), installed
 * globally into a temporary prefix from the tarball, then run by its bin name.
 */
describe('npm pack + npm install -g of the tarball', {timeout: 600_000}, () => {
  let dir: string
  let installed: string
  let files: string[]
  // The installed bin first on PATH, and a Node 22 for its `#!/usr/bin/env node`.
  const env = () => ({...process.env, PATH: [join(dir, 'prefix', 'bin'), NODE_BIN, process.env.PATH].join(':'), NODE_ENV: undefined})

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-package-'))
    // The test suite builds first; --ignore-scripts skips prepack's second build.
    const {stdout} = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024})
    const [packed] = JSON.parse(stdout) as Array<{filename: string; files: Array<{path: string}>}>
    files = packed.files.map((file) => file.path)
    await run('npm', ['install', '--global', '--prefix', join(dir, 'prefix'), join(dir, packed.filename), '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: dir,
      env: env(),
      maxBuffer: 64 * 1024 * 1024,
    })
    installed = join(dir, 'prefix', 'lib', 'node_modules', 'html-video-engine')
  }, 600_000)
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('ships the CLI, the SDK entries and the manifest, no tests, and no source map pointing outside the package', async () => {
    expect(files).toEqual(expect.arrayContaining(['bin/run.js', 'oclif.manifest.json', 'dist/src/lib/index.js', 'dist/src/plugin/index.js', 'dist/src/plugin/index.d.ts']))
    // The projects `engine init` copies, which the help examples are written for.
    expect(files).toEqual(expect.arrayContaining(['examples/hello/index.html', 'examples/hello/rows.csv', 'examples/hello/engine.config.json', 'examples/lower-third/index.html']))
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('node_modules/'))).toEqual([])
    const maps = files.filter((file) => file.endsWith('.map'))
    expect(maps.length).toBeGreaterThan(0)
    const shipped = new Set(files)
    const dangling: string[] = []
    for (const map of maps) {
      const {sources} = JSON.parse(await readFile(join(installed, map), 'utf8')) as {sources: string[]}
      for (const source of sources) {
        const path = relative(installed, resolve(installed, dirname(map), source))
        if (!shipped.has(path)) dangling.push(`${map} -> ${path}`)
      }
    }
    expect(dangling).toEqual([])
  })

  it('`engine` runs by name: doctor, a render, and the plugin API as a package export', async () => {
    const doctor = await run('engine', ['doctor'], {cwd: dir, env: env()})
    expect(doctor.stdout).toMatch(/encoders for mp4, mov, webm, gif, png-sequence/)
    expect(doctor.stdout).toMatch(/ready to render/)

    const output = join(dir, 'green.mp4')
    await run('engine', ['render', join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html'), '--variables', '{"color":"#00ff00"}', '-o', output, '--quiet'], {cwd: dir, env: env()})
    expect(existsSync(output)).toBe(true)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', nb_read_frames: '30'})
    expect(near(await pixelAt(output, 10, 160, 150), {r: 0, g: 255, b: 0})).toBe(true)

    const script = "const api = await import('html-video-engine/plugin'); const sdk = await import('html-video-engine'); console.log(api.apiVersion, typeof api.x264Args, sdk.listFormats().length)"
    const {stdout} = await run(process.execPath, ['--input-type=module', '-e', script], {cwd: join(dir, 'prefix', 'lib')})
    expect(stdout.trim()).toBe('1 function 5')
  })

  it.skipIf(!canHideSystemTools)(
    'on a machine with no browser and no ffmpeg, `engine init` then one `engine render --yes` renders the project, fetching both from the (loopback) mirrors',
    async () => {
      // As on a platform npm has no such optional package for (and as the lean core will be): the
      // static ffmpeg/ffprobe beside engine are gone, so the first render has to fetch them.
      for (const name of ['@ffmpeg-installer', '@ffprobe-installer', 'ffmpeg-static']) await rm(join(installed, 'node_modules', name), {recursive: true, force: true})
      const mirror = await startDownloadMirror()
      try {
        const bare = {
          HOME: join(dir, 'home'),
          PATH: `${join(dir, 'prefix', 'bin')}:${nodeOnlyPath()}`,
          ENGINE_CACHE_DIR: join(dir, 'bare-cache'),
          ENGINE_BROWSER_MIRROR: mirror.browserBaseUrl,
          ENGINE_NPM_REGISTRY: mirror.registry,
        }
        const init = await runBare(['engine', 'init', 'my-video'], {cwd: dir, env: bare})
        expect(init.code, init.stderr).toBe(0)
        expect(init.stdout).toContain('engine render index.html')
        const project = join(dir, 'my-video')

        const render = await runBare(['engine', 'render', 'index.html', '--yes'], {cwd: project, env: bare, timeoutMs: 300_000})
        expect(render.code, render.stderr).toBe(0)
        const build = staticFfmpegBuild()!
        expect(render.stderr).toContain(`chrome-headless-shell ${PINNED_BROWSER.buildId} (the pinned capture browser)`)
        expect(render.stderr).toContain(`npm ${build.ffmpeg.name}@${build.ffmpeg.version}, ${build.ffprobe.name}@${build.ffprobe.version}`)
        expect(render.stderr).toContain(`from ${mirror.registry}`)
        expect(mirror.requests).toEqual(expect.arrayContaining([`/npm/${build.ffmpeg.name}`, `/npm/${build.ffprobe.name}`, `/chrome/${PINNED_BROWSER.buildId}/linux64/chrome-headless-shell-linux64.zip`]))
        // The project's composition: 4 s at 30 fps, 1280x720.
        expect(await probeVideoStream(join(project, 'renders', 'my-video.mp4'))).toMatchObject({codec_name: 'h264', width: 1280, height: 720, nb_read_frames: '120'})

        const doctor = await runBare(['engine', 'doctor'], {cwd: project, env: bare})
        expect(doctor.stdout).toMatch(/ok {7}ffmpeg: .*bare-cache.* \(cache\)/)
        expect(doctor.stdout).toMatch(/ok {7}browser: .*bare-cache.* \(pinned\)/)
        expect(doctor.stdout).toContain('ready to render')
      } finally {
        await mirror.close()
      }
    },
  )
})
