import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FUNCTION_CHROMIUM} from '../../src/lib/browser/function-chromium.js'
import {PINNED_BROWSER} from '../../src/lib/browser/pinned-browser.js'
import {staticFfmpegBuild} from '../../src/lib/encode/static-ffmpeg.js'
import {PINNED_FFMPEG} from '../../src/lib/encode/pinned-ffmpeg.js'
import {nodeOnlyPath} from '../support/bare-machine.js'
import {skipWithout} from '../support/capabilities.js'
import {sharedStack} from '../support/shared-stack.js'
import {LAMBDA_FIXTURES} from '../lambda/support.js'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {REPO_ROOT} from '../support/run-cli.js'

const run = promisify(execFile)
const NODE_BIN = dirname(process.execPath)
/**
 * What the core install no longer carries: what only the serverless path needs (the companion
 * package's dependencies) and the whole Fontsource packages (fonts/ has the files renders use).
 */
const LEFT_OUT = ['@aws-sdk', '@sparticuz', '@ffmpeg-installer', '@ffprobe-installer', 's3rver', 'aws-local-stepfunctions', 'esbuild', 'yazl', '@fontsource', 'html-video-engine-lambda']
/** What `engine lambda` tells a user of the installed core to run: the companion's tarball, which `npm pack -w packages/lambda` makes in a checkout. */
const COMPANION_TARBALL = 'html-video-engine-lambda-0.1.0.tgz'
const INSTALL_COMPANION = `engine plugins install ./${COMPANION_TARBALL}`

/**
 * The package as users get it: `npm pack` of this checkout (built by `npm test`), installed
 * globally into a temporary prefix from the tarball, then run by its bin name.
 */
describe('npm pack + npm install -g of the tarball', {timeout: 600_000}, () => {
  let dir: string
  let installed: string
  let files: string[]
  let coreTarball: string
  // The installed bin first on PATH, and a Node 22 for its `#!/usr/bin/env node`.
  const env = () => ({...process.env, PATH: [join(dir, 'prefix', 'bin'), NODE_BIN, process.env.PATH].join(':'), NODE_ENV: undefined})

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-package-'))
    // The test suite builds first; --ignore-scripts skips prepack's second build.
    const {stdout} = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024})
    const [packed] = JSON.parse(stdout) as Array<{filename: string; files: Array<{path: string}>}>
    files = packed.files.map((file) => file.path)
    coreTarball = packed.filename
    await run('npm', ['pack', '-w', 'packages/lambda', '--ignore-scripts', '--pack-destination', dir], {cwd: REPO_ROOT})
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
  /** The installed `engine`, its exit status and output whatever the status. */
  const engine = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    new Promise<{code: number; stdout: string; stderr: string}>((resolve) => {
      execFile('engine', args, {cwd: dir, env: {...env(), ...extraEnv}, maxBuffer: 16 * 1024 * 1024}, (error, stdout, stderr) => {
        resolve({code: error ? Number((error as {code?: unknown}).code ?? 1) : 0, stdout, stderr})
      })
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

  it('is the lean core: under 150 MB, none of the serverless packages, and `engine lambda` says in one line how to install them', async () => {
    expect(LEFT_OUT.filter((name) => existsSync(join(installed, 'node_modules', name)))).toEqual([])
    const {stdout} = await run('du', ['-sm', join(dir, 'prefix')])
    const megabytes = Number(stdout.split('\t')[0])
    console.log(`global install of the core: ${megabytes} MB (du -sm of the prefix)`)
    expect(megabytes).toBeLessThan(150)
    for (const args of [['lambda', 'render', 'index.html'], ['lambda', '--help'], ['help', 'lambda'], ['lambda']]) {
      const result = await engine(args)
      expect(result.code, args.join(' ')).toBe(127)
      expect(result.stderr).toBe(
        `error [UNKNOWN_COMMAND]: \`engine lambda\` (the serverless commands: AWS Lambda + Step Functions and their local stack) comes with the package html-video-engine-lambda, which is not installed: ` +
          `install it with \`${INSTALL_COMPANION}\` (the tarball is made by \`npm pack -w packages/lambda\` in a checkout of engine)\n`,
      )
      expect(result.stdout).toBe('')
    }
    // The root help still says that `engine lambda` exists and how to get it.
    const help = await engine(['help'])
    expect(help.code, help.stderr).toBe(0)
    const notInstalled = help.stdout.slice(help.stdout.indexOf('NOT INSTALLED')).replace(/\s+/g, ' ')
    expect(notInstalled).toContain(`NOT INSTALLED lambda the serverless commands: AWS Lambda + Step Functions and their local stack; install with \`${INSTALL_COMPANION}\``)
    const json = await engine(['lambda', 'sites', 'ls', '--json'])
    expect(JSON.parse(json.stdout).error).toMatchObject({code: 'UNKNOWN_COMMAND', details: {package: 'html-video-engine-lambda', install: INSTALL_COMPANION}})
    // Nothing warns about the absent companion, in production or with a development NODE_ENV.
    for (const nodeEnv of [undefined, 'development']) {
      const version = await engine(['--version'], {NODE_ENV: nodeEnv})
      expect({code: version.code, stderr: version.stderr}).toEqual({code: 0, stderr: ''})
    }
  })

  it('with the companion linked into its data directory, `engine lambda` is back and runs on the installed core', async () => {
    const data = {HOME: join(dir, 'companion-home'), XDG_DATA_HOME: join(dir, 'companion-home', 'data')}
    // The workspace package with its dependencies (this checkout's node_modules); the engine it
    // imports is the installed one, not this checkout.
    const linked = await engine(['plugins', 'link', join(REPO_ROOT, 'packages', 'lambda'), '--no-install'], data)
    expect(linked.code, linked.stderr).toBe(0)
    const help = await engine(['lambda', '--help'], data)
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain('lambda render')
    expect((await engine(['help'], data)).stdout).not.toContain('NOT INSTALLED')
    // A command that loads its module: the companion imports the core by its package exports.
    const policy = await engine(['lambda', 'policies', 'role', '--account-id', '123456789012'], data)
    expect(policy.code, policy.stderr).toBe(0)
    expect(JSON.parse(policy.stdout)).toMatchObject({Version: '2012-10-17'})
    // The user's other data directories still see no companion.
    expect((await engine(['lambda', '--help'])).code).toBe(127)
  })

  it('the hint works as printed: `engine plugins install ./<tarball>` of the packed companion brings `engine lambda` back', async () => {
    const data = {HOME: join(dir, 'hint-home'), XDG_DATA_HOME: join(dir, 'hint-home', 'data')}
    // The command exactly as `engine lambda` printed it, run where the tarball is. The optional
    // packages (Lambda's Chromium and ffmpeg, 200 MB) are for building a function bundle: left out here.
    const [command, ...args] = INSTALL_COMPANION.split(' ')
    expect(command).toBe('engine')
    const installedCompanion = await engine(args, {...data, npm_config_omit: 'optional', npm_config_prefer_offline: 'true'})
    expect(installedCompanion.code, installedCompanion.stderr).toBe(0)
    const policy = await engine(['lambda', 'policies', 'role', '--account-id', '123456789012'], data)
    expect(policy.code, policy.stderr).toBe(0)
    expect(JSON.parse(policy.stdout)).toMatchObject({Version: '2012-10-17'})
    expect((await engine(['plugins'], data)).stdout).toContain('html-video-engine-lambda')
  })

  it('the SDK as a project installs it (both packed packages side by side in node_modules): renderToLambda checks its input before any call, and a render on the local stack succeeds', async () => {
    const stack = await sharedStack()
    const project = join(dir, 'sdk-project')
    await mkdir(project)
    await writeFile(join(project, 'package.json'), JSON.stringify({name: 'sdk-user', private: true, type: 'module'}))
    await run('npm', ['install', join(dir, coreTarball), join(dir, COMPANION_TARBALL), '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {cwd: project, env: env(), maxBuffer: 64 * 1024 * 1024})
    const script = `
      import {deploySite, renderToLambda, waitForRender} from 'html-video-engine-lambda'
      import {EngineError} from 'html-video-engine'
      const [fixture, bucketName, endpoint, stateMachineArn] = process.argv.slice(2)
      const refused = await renderToLambda({siteHandle: {siteId: 'c27eaf1e0e0583384fc7b72a'}, bucketName, stateMachineArn, endpoint: 'http://127.0.0.2:9', outputKey: 'sdk/big.mp4',
        config: {fps: 30, width: 320, height: 180, format: 'mp4', variables: {fill: 'A'.repeat(300000)}}}).then(() => 'started', (error) => error)
      const site = await deploySite({projectDir: fixture, bucketName, endpoint})
      const handle = await renderToLambda({siteHandle: site, bucketName, stateMachineArn, endpoint, outputKey: 'sdk/tiny.mp4', config: {fps: 30, width: 320, height: 180, format: 'mp4', variables: {fill: '#00ff00'}}})
      const done = await waitForRender({render: handle.renderId, endpoint, stateMachineArn, pollMs: 200, signal: AbortSignal.timeout(120000)})
      console.log(JSON.stringify({refused: {sameClass: refused instanceof EngineError, code: refused.code, message: refused.message}, status: done.status, error: done.error, frames: done.frames}))
    `
    await writeFile(join(project, 'use-sdk.mjs'), script)
    const {stdout} = await run(process.execPath, ['use-sdk.mjs', join(LAMBDA_FIXTURES, 'tiny'), stack.env.ENGINE_BUCKET, stack.env.ENGINE_AWS_ENDPOINT, stack.env.ENGINE_SFN_ARN], {
      cwd: project,
      env: {...process.env, ...stack.env},
    })
    const result = JSON.parse(stdout) as {refused: {sameClass: boolean; code: string; message: string}; status: string; error?: unknown; frames: {done: number; total: number}}
    // The companion throws the installed core's error class: one core, the project's.
    expect(result.refused).toMatchObject({sameClass: true, message: expect.stringMatching(/^\[validateConfig\] config: .*\d+ bytes/)})
    expect(result).toMatchObject({status: 'SUCCEEDED', frames: {done: 6, total: 6}})
    const output = join(project, 'tiny.mp4')
    await stack.bucket.downloadFile('sdk/tiny.mp4', output)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', width: 320, height: 180, nb_read_frames: '6'})
    expect(near(await pixelAt(output, 3, 160, 90), {r: 0, g: 255, b: 0})).toBe(true)
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
    expect(stdout.trim()).toBe('1 function 6')
  })

  it('on a machine with no browser and no ffmpeg that reaches only the npm registry, `engine render … --yes` renders the shipped example: both come from the registry, through npm\'s own settings', async (context) => {
    // What npm is told on this machine (registry, CA file, cache), as a user's ~/.npmrc would say it.
    const npmSetting = async (key: string) => (await run('npm', ['config', 'get', key], {cwd: dir})).stdout.trim()
    const [registry, cafile, cache] = await Promise.all([npmSetting('registry'), npmSetting('cafile'), npmSetting('cache')])
    const unreachable = await registryUnreachable(registry)
    skipWithout(context, 'npm-registry', unreachable === undefined, `the npm registry ${registry}, which scripts/setup.sh also needs: ${unreachable}`)
    const home = join(dir, 'registry-only-home')
    await mkdir(home, {recursive: true})
    await writeFile(join(home, '.npmrc'), [`registry=${registry}`, ...(cafile && cafile !== 'null' ? [`cafile=${cafile}`] : []), `cache=${cache}`].join('\n') + '\n')
    // Nothing of this machine's: PATH has the installed engine and node only, no NODE_EXTRA_CA_CERTS
    // (the CA comes from npm's cafile), no system browser (ENGINE_BROWSER=downloaded skips the one at
    // its fixed path), and the hosts of the pinned builds stand for the unreachable internet.
    const bare = {
      HOME: home,
      PATH: `${join(dir, 'prefix', 'bin')}:${nodeOnlyPath()}`,
      ENGINE_CACHE_DIR: join(dir, 'registry-only-cache'),
      ENGINE_BROWSER: 'downloaded',
      ENGINE_BROWSER_MIRROR: 'http://127.0.0.2:9/chrome-for-testing',
      ENGINE_FFMPEG_MIRROR: 'http://127.0.0.2:9/ffmpeg',
    }
    const example = join(installed, 'examples', 'hello', 'index.html')
    const output = join(dir, 'registry-only', 'hello.mp4')
    const render = await cleanEngine(['render', example, '--scale', '0.5', '--frames', '0-29', '-o', output, '--yes'], bare)
    expect(render.code, render.stderr).toBe(0)
    expect(render.stderr).toContain(`could not download chrome-headless-shell ${PINNED_BROWSER.buildId}`)
    expect(render.stderr).toContain(`downloading the function Chromium (npm ${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}, ${FUNCTION_CHROMIUM.product}) from ${registry.replace(/\/+$/, '')} instead`)
    expect(render.stderr).toContain(`could not download ffmpeg ${PINNED_FFMPEG.x86_64.version} (x86_64)`)
    const build = staticFfmpegBuild()!
    expect(render.stderr).toMatch(new RegExp(`downloaded: browser: the function Chromium .*; ffmpeg: npm ${build.ffmpeg.name.replace('/', '\\/')}@${build.ffmpeg.version}`))
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', width: 640, height: 360, nb_read_frames: '30'})

    // Which browser and ffmpeg it used: engine's cache, nothing of the system's.
    const doctor = await cleanEngine(['doctor', '--json'], bare)
    const checks = (JSON.parse(doctor.stdout) as {checks: Array<{name: string; status: string; info: {path?: string; source?: string}}>}).checks
    expect(checks.find((check) => check.name === 'browser')).toMatchObject({status: 'ok', info: {source: 'function-chromium', path: expect.stringContaining('registry-only-cache')}})
    expect(checks.find((check) => check.name === 'ffmpeg')).toMatchObject({status: 'ok', info: {source: 'cache', path: expect.stringContaining('registry-only-cache')}})
  })

})

/** Why the registry cannot be reached, or undefined when it answers. */
async function registryUnreachable(registry: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${registry.replace(/\/+$/, '')}/@sparticuz%2fchromium`, {method: 'HEAD', signal: AbortSignal.timeout(15_000)})
    return response.status < 500 ? undefined : `it answered ${response.status}`
  } catch (error) {
    return (error as {cause?: Error}).cause?.message ?? (error as Error).message
  }
}

/** The installed `engine` with exactly `env` (nothing of this process's environment). */
function cleanEngine(args: string[], env: NodeJS.ProcessEnv): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile('engine', args, {env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024}, (error, stdout, stderr) => {
      resolve({code: error ? Number((error as {code?: unknown}).code ?? 1) : 0, stdout, stderr})
    })
  })
}
