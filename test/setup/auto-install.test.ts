import {existsSync} from 'node:fs'
import {mkdtemp, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {progressBarText} from '../../src/cli/download-progress.js'
import {PINNED_BROWSER} from '../../src/lib/browser/pinned-browser.js'
import {resolveFfmpeg} from '../../src/lib/encode/resolve-ffmpeg.js'
import {staticFfmpegBuild, staticFfmpegDir} from '../../src/lib/encode/static-ffmpeg.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {DEFAULT_NPM_REGISTRY, downloadMirrors} from '../../src/lib/setup/download-mirrors.js'
import {installConsent} from '../../src/lib/setup/install-consent.js'
import {installStaticFfmpeg} from '../../src/lib/setup/install-static-ffmpeg.js'
import {ffmpegToolDownload} from '../../src/lib/setup/missing-tools.js'
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {bareCommand, canHideSystemTools, nodeOnlyPath, runBare} from '../support/bare-machine.js'
import {skipWithout} from '../support/capabilities.js'
import {startDownloadMirror, staticBuildTarball, type DownloadMirror} from '../support/download-mirror.js'
import {probeVideoStream} from '../support/media.js'
import {REPO_ROOT} from '../support/run-cli.js'

const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (error: EngineError) => error)

describe('download consent', () => {
  const ask = (yes: boolean, env: NodeJS.ProcessEnv, interactive: boolean) => installConsent({yes, env, interactive})
  it('installs with --yes or ENGINE_AUTO_INSTALL=1, asks a person at a terminal, and refuses scripts and CI with the way to allow it', () => {
    expect(ask(true, {CI: 'true'}, false)).toEqual({decision: 'install'})
    expect(ask(false, {ENGINE_AUTO_INSTALL: '1', CI: 'true'}, false)).toEqual({decision: 'install'})
    expect(ask(false, {}, true)).toEqual({decision: 'ask'})
    expect(ask(false, {CI: 'false'}, true)).toEqual({decision: 'ask'})
    expect(ask(false, {CI: 'true'}, true)).toMatchObject({decision: 'refuse', reason: expect.stringContaining('--yes')})
    expect(ask(false, {}, false)).toMatchObject({decision: 'refuse', reason: expect.stringContaining('ENGINE_AUTO_INSTALL=1')})
    expect(ask(false, {ENGINE_AUTO_INSTALL: '0'}, true)).toMatchObject({decision: 'refuse', reason: 'ENGINE_AUTO_INSTALL=0 forbids downloads'})
  })
})

describe('download mirrors', () => {
  it('come from the environment, fall back to the registry npm uses, and refuse what is not an http(s) URL by name', () => {
    expect(downloadMirrors({}).npmRegistry).toBe(DEFAULT_NPM_REGISTRY)
    expect(downloadMirrors({npm_config_registry: 'https://npm.example.test/'}).npmRegistry).toBe('https://npm.example.test')
    expect(downloadMirrors({ENGINE_NPM_REGISTRY: 'http://127.0.0.2:4873/', npm_config_registry: 'https://npm.example.test/'}).npmRegistry).toBe('http://127.0.0.2:4873')
    expect(downloadMirrors({ENGINE_BROWSER_MIRROR: 'http://[::1]:8080/cft/'}).browser).toBe('http://[::1]:8080/cft')
    for (const [name, value] of [['ENGINE_BROWSER_MIRROR', 'file:///etc'], ['ENGINE_NPM_REGISTRY', 'registry.local']]) {
      expect(() => downloadMirrors({[name]: value})).toThrowError(expect.objectContaining({code: 'INVALID_CONFIG', message: expect.stringContaining(`${name}: "${value}" is not an http(s) URL`)}))
    }
  })

  it('draws a download as a bar with its percentage and sizes', () => {
    expect(progressBarText('ffmpeg', 25e6, 100e6)).toBe('ffmpeg  [######------------------]  25%  25.0/100.0 MB')
    expect(progressBarText('ffmpeg', 3e6, 0)).toBe('ffmpeg  3.0 MB')
  })
})

describe('static ffmpeg from an npm registry (loopback mirror)', {timeout: 120_000}, () => {
  let mirror: DownloadMirror
  let dir: string
  beforeAll(async () => {
    mirror = await startDownloadMirror()
    dir = await mkdtemp(join(tmpdir(), 'engine-ffmpeg-install-'))
  }, 60_000)
  afterAll(async () => {
    await mirror?.close()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('refuses a tarball that does not match the registry hash, and leaves nothing behind', async () => {
    const env = {ENGINE_CACHE_DIR: join(dir, 'forged')}
    const real = (await staticBuildTarball('ffprobe')).bytes
    mirror.tarballs.set('ffprobe', Buffer.concat([real.subarray(0, real.length - 1), Buffer.from([real[real.length - 1] ^ 1])]))
    try {
      const error = await failure(installStaticFfmpeg({registry: mirror.registry, env}))
      expect(error.code).toBe('DOWNLOAD_FAILED')
      expect(error.message).toMatch(/does not match the registry's sha512.*nothing was installed/)
      expect(await readdir(join(dir, 'forged', 'ffmpeg'))).toEqual([])
    } finally {
      mirror.tarballs.delete('ffprobe')
    }
  })

  it('names the package and the registry when the registry lacks it', async () => {
    const error = await failure(installStaticFfmpeg({registry: `${mirror.registry}/nowhere`, env: {ENGINE_CACHE_DIR: join(dir, 'missing')}}))
    expect(error.code).toBe('DOWNLOAD_FAILED')
    expect(error.message).toContain(`${staticFfmpegBuild()!.ffmpeg.name}@${staticFfmpegBuild()!.ffmpeg.version}`)
    expect(error.message).toContain('answered 404')
  })

  // The fallback is installStaticFfmpeg itself (missing-tools.ts): this one install also shows what it leaves in the cache.
  it('the download a render offers: the pinned build first, and the npm build when its archive cannot be had, said in a notice; it installs ffmpeg and ffprobe into the cache, where a render finds them with nothing on PATH', async () => {
    const env = {ENGINE_CACHE_DIR: join(dir, 'fallback')}
    const download = ffmpegToolDownload({...downloadMirrors({}), npmRegistry: mirror.registry, ffmpeg: mirror.ffmpegMirror}, env)!
    expect(download.what).toMatch(/^static ffmpeg and ffprobe 7\.0\.2 \(ffmpeg-7\.0\.2-amd64-static\.tar\.xz, sha256-checked; the serverless function's build\), else static ffmpeg and ffprobe \(npm @ffmpeg-installer\/linux-x64@4\.1\.0/)
    expect(download.from).toBe(`${mirror.ffmpegMirror}/ffmpeg-7.0.2-amd64-static.tar.xz (else ${mirror.registry})`)
    const notices: string[] = []
    const seen = new Set<string>()
    await download.run((file, done, total) => done === total && seen.add(file), (message) => notices.push(message))
    expect(notices).toHaveLength(1)
    expect(notices[0]).toContain(`could not download ffmpeg 7.0.2 (x86_64): ${mirror.ffmpegMirror}/ffmpeg-7.0.2-amd64-static.tar.xz answered 404`)
    expect(notices[0]).toMatch(/; downloading static ffmpeg and ffprobe \(npm @ffmpeg-installer\/linux-x64@4\.1\.0, .*\) instead$/)
    expect([...seen].sort()).toEqual(['ffmpeg', 'ffprobe'])
    const directory = staticFfmpegDir(staticFfmpegBuild()!, env)
    expect((await readdir(directory)).sort()).toEqual(['ffmpeg', 'ffprobe'])
    const found = await resolveFfmpeg({env: {...env, PATH: nodeOnlyPath()}})
    expect(found).toMatchObject({source: 'cache', ffmpegPath: join(directory, 'ffmpeg'), ffprobePath: join(directory, 'ffprobe')})
    expect(found.version).toMatch(/\d/)
  })

  it('doctor --fix reports a part it cannot fetch with the reason, then the report says what is still missing', async () => {
    const env = {
      ...process.env,
      HOME: join(dir, 'fix-home'),
      PATH: nodeOnlyPath(),
      ENGINE_CACHE_DIR: join(dir, 'fix-cache'),
      // No system browser counts, Chrome for Testing is unreachable, and the registry has no function Chromium (404).
      ENGINE_BROWSER: 'downloaded',
      ENGINE_BROWSER_MIRROR: 'http://127.0.0.2:9/chrome',
      ENGINE_NPM_REGISTRY: mirror.registry,
      ENGINE_FFMPEG_MIRROR: mirror.ffmpegMirror,
    }
    const fixed = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'doctor', '--fix'], {cwd: dir, env}).then(
      ({stdout, stderr}) => ({code: 0, stdout, stderr}),
      (error: {stdout: string; stderr: string; code: number}) => error,
    )
    const {stdout, stderr} = fixed
    expect(fixed.code).toBe(1)
    expect(stderr).toMatch(/not fixed: browser: could not download @sparticuz\/chromium@153\.0\.0 from http:\/\/127\.0\.0\.1:\d+\/npm: .* answered 404/)
    // (In a checkout ffmpeg is never missing: the static build npm installed beside engine is found.)
    expect(stdout).toMatch(/ok {7}ffmpeg: /)
    expect(stdout).toMatch(/missing {2}browser: no browser to capture with \(ENGINE_BROWSER=downloaded/)
  })
})

// Listed with its reason where the machine cannot hide its browser (and failed under CI, whose setup provides it).
if (!canHideSystemTools) it('a first render on a machine without a browser', (context) => skipWithout(context, 'hide-system-tools', false, 'user namespaces: unshare -m, as root in CI'))

describe.skipIf(!canHideSystemTools)('a first render on a machine without a browser (system shell hidden, loopback mirror)', {timeout: 300_000}, () => {
  let mirror: DownloadMirror
  let dir: string
  let env: NodeJS.ProcessEnv
  const composition = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')
  beforeAll(async () => {
    mirror = await startDownloadMirror()
    dir = await mkdtemp(join(tmpdir(), 'engine-first-render-'))
    env = {HOME: dir, PATH: nodeOnlyPath(), ENGINE_CACHE_DIR: join(dir, 'cache'), ENGINE_BROWSER_MIRROR: mirror.browserBaseUrl, ENGINE_NPM_REGISTRY: mirror.registry, ENGINE_FFMPEG_MIRROR: mirror.ffmpegMirror}
  }, 60_000)
  afterAll(async () => {
    await mirror?.close()
    if (dir) await rm(dir, {recursive: true, force: true})
  })
  const engine = (args: string[], extra: NodeJS.ProcessEnv = {}) => runBare(['node', join(REPO_ROOT, 'bin', 'run.js'), ...args], {cwd: dir, env: {...env, ...extra}})

  it('downloads nothing unasked: a script is told to add --yes, CI is refused, and the mirror sees no request', async () => {
    const script = await engine(['render', composition, '-o', join(dir, 'a.mp4')])
    expect(script.code).toBe(1)
    expect(script.stderr).toContain('error [BROWSER_NOT_FOUND]')
    expect(script.stderr).toMatch(/not downloaded: no terminal to ask: add --yes or set ENGINE_AUTO_INSTALL=1/)
    const ci = await engine(['render', composition, '-o', join(dir, 'a.mp4')], {CI: 'true'})
    expect(ci.stderr).toMatch(/not downloaded: in CI engine downloads nothing unless asked/)
    expect(mirror.requests).toEqual([])
    expect(existsSync(join(dir, 'a.mp4'))).toBe(false)
  })

  it('at a terminal asks first, and an answer of no downloads nothing (pseudo-terminal)', async () => {
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
    const command = bareCommand(['node', join(REPO_ROOT, 'bin', 'run.js'), 'render', composition, '-o', join(dir, 'asked.mp4')]).map(quote).join(' ')
    const child = promisify(execFile)('/usr/bin/script', ['-qfec', command, '/dev/null'], {cwd: dir, env, timeout: 120_000})
    child.child.stdin!.end('n\n')
    const {stdout} = await child.catch((error: {stdout: string}) => error)
    expect(stdout).toContain('Download now? [Y/n]')
    expect(stdout).toContain(`into ${join(dir, 'cache', 'browsers')}`)
    expect(stdout).toMatch(/error \[BROWSER_NOT_FOUND\]: nothing was downloaded/)
    expect(mirror.requests).toEqual([])
    expect(existsSync(join(dir, 'asked.mp4'))).toBe(false)
  })

  it('with --yes says what it downloads and where, shows progress, then renders; the next render downloads nothing', async () => {
    const output = join(dir, 'first.mp4')
    const first = await engine(['render', composition, '--variables', '{"color":"#00ff00"}', '-o', output, '--quiet', '--yes'], {CI: 'true'})
    expect(first.stderr).toContain(`chrome-headless-shell ${PINNED_BROWSER.buildId} (the pinned capture browser)`)
    expect(first.stderr).toContain(`from ${mirror.browserBaseUrl}`)
    expect(first.stderr).toContain(`into ${join(dir, 'cache', 'browsers')}`)
    expect(first.stderr).toMatch(/\[#{24}\] 100%/)
    expect(first.code, first.stderr).toBe(0)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', nb_read_frames: '30'})

    const before = mirror.requests.length
    const again = await engine(['render', composition, '-o', join(dir, 'again.mp4'), '--quiet'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).not.toContain('download')
    expect(mirror.requests.length).toBe(before)
  })

  it('doctor reports the downloaded browser as the pinned one', async () => {
    const doctor = await engine(['doctor', '--json'])
    const browser = (JSON.parse(doctor.stdout) as {checks: Array<{name: string; status: string; info: {source?: string}}>}).checks.find((check) => check.name === 'browser')
    expect(browser).toMatchObject({status: 'ok', info: {source: 'pinned'}})
  })

  it('doctor --fix installs into an empty cache without asking, and says so', async () => {
    const fixed = await engine(['doctor', '--fix'], {ENGINE_CACHE_DIR: join(dir, 'cache-2')})
    expect(fixed.stderr).toContain(`into ${join(dir, 'cache-2', 'browsers')}`)
    expect(fixed.stdout).toMatch(/ok {7}browser: .*cache-2.*\(pinned\)/)
  })
})
