import {execFileSync, spawn} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startDownloadMirror, type DownloadMirror} from '../support/download-mirror.js'
import {seedPinnedFfmpeg} from '../support/pinned-ffmpeg.js'
import {REPO_ROOT, type CliResult} from '../support/run-cli.js'

interface ManifestCommand {
  examples?: Array<string | {command: string; description?: string}>
}

/** Every `examples:` entry of every engine command, as the help prints it (bin name filled in), in the manifest's order. */
function helpExamples(): Array<{id: string; command: string}> {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
  return Object.entries(manifest.commands).flatMap(([id, command]) =>
    (command.examples ?? []).map((example) => ({id, command: (typeof example === 'string' ? example : example.command).replaceAll('<%= config.bin %>', 'engine')})),
  )
}

const dockerEngine = (() => {
  try {
    execFileSync('docker', ['info'], {stdio: 'ignore', timeout: 10_000})
    return true
  } catch {
    return false
  }
})()

/** Examples not run here, each with the reason; everything else must run as written. */
function skipReason(id: string, command: string): string | undefined {
  if (id.startsWith('lambda:') && id !== 'lambda:policies') {
    return 'needs an AWS account (or builds the 200 MB function bundle): the serverless path runs end to end against the local stack in test/lambda'
  }
  if (id === 'browser:install' && command.includes('--function')) return "downloads the function's 70 MB Chromium package through npm; test/setup/function-chromium-install.test.ts runs it against a loopback registry"
  if (id === 'fonts:add') return 'installs Fontsource packages through npm; test/fonts/fonts-cli.test.ts runs it against a loopback registry'
  if (id === 'docker:build' && !command.includes('--context') && !dockerEngine) return 'needs a Docker or podman engine, which this machine lacks'
  if (command.includes('--host 0.0.0.0')) return 'listens on every network interface; tests listen on loopback only'
  return undefined
}

/** Servers run until stopped: they pass when they answer at the address they print. */
const LONG_RUNNING = new Set(['preview', 'serve'])

describe('every help example runs as written, in a project made by `engine init`', {timeout: 900_000}, () => {
  let dir: string
  let project: string
  let env: NodeJS.ProcessEnv
  let mirror: DownloadMirror
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engine-help-examples-'))
    project = join(dir, 'project')
    mkdirSync(project)
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'engine'), `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, 'bin', 'run.js')}" "$@"\n`)
    chmodSync(join(bin, 'engine'), 0o755)
    mirror = await startDownloadMirror()
    // Its own home, caches and config, so that `cache clean`, `--save` and `browser install` touch nothing of the machine's.
    const home = join(dir, 'home')
    env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      ENGINE_CACHE_DIR: join(home, '.cache', 'engine'),
      ENGINE_BROWSER_MIRROR: mirror.browserBaseUrl,
      ENGINE_NPM_REGISTRY: mirror.registry,
    }
    // The pinned ffmpeg archive cannot be downloaded here: its cache holds this machine's ffmpeg
    // under the pinned build's record, so `ffmpeg install` finds it installed, as on a second run
    // (test/setup/pinned-ffmpeg-install.test.ts downloads it from a loopback mirror).
    for (const arch of ['x86_64', 'arm64'] as const) await seedPinnedFfmpeg(env.ENGINE_CACHE_DIR!, arch)
    const init = await shell('engine init .', project, env)
    expect(init.code, init.stderr).toBe(0)
    // What is under test is that each example runs as written, not a 1280x720 render at 30 fps: the
    // project renders at half its size (640x360, the smallest begin-frame capture draws; below it
    // frames are screenshots, about three times slower) and 15 fps (60 frames: `--frames 0-29` and
    // `still --frame 45` are still inside it) unless an example says otherwise.
    const config = join(project, 'engine.config.json')
    writeFileSync(config, JSON.stringify({...JSON.parse(readFileSync(config, 'utf8')), scale: 0.5, fps: 15}, null, 2))
  }, 120_000)
  afterAll(async () => {
    await mirror?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  it('finds examples for the commands users start with', () => {
    const ids = new Set(helpExamples().map((example) => example.id))
    for (const id of ['init', 'render', 'still', 'lint', 'preview', 'doctor']) expect(ids, id).toContain(id)
  })

  for (const {id, command} of helpExamples()) {
    const reason = skipReason(id, command)
    if (reason) {
      it.skip(`${command} (skipped: ${reason})`)
      continue
    }
    it(command, async () => {
      const result = LONG_RUNNING.has(id) ? await serveOnce(command, project, env) : await shell(command, project, env)
      expect(result.code, `${command}\n${result.stderr}`).toBe(0)
    })
  }
})

function shell(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 300_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {cwd, env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}

/** Starts a server example, waits for the URL it prints, asks it for that page, then stops it with SIGINT (exit 0 when it answered 2xx and then exited 130). */
function serveOnce(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // exec: the signal reaches engine itself, not the shell in front of it.
    const child = spawn('/bin/sh', ['-c', `exec ${command}`], {cwd, env: {...env, BROWSER: 'true'}, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let answered: number | undefined
    const giveUp = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.stdout.on('data', async (chunk) => {
      const before = stdout
      stdout += chunk
      const origin = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout)?.[0]
      if (!origin || /http:\/\/127\.0\.0\.1:\d+/.test(before)) return
      try {
        const response = await fetch(`${origin}/${command.includes(' serve') ? 'render/queue' : ''}`, {signal: AbortSignal.timeout(20_000)})
        answered = response.status
        await response.body?.cancel()
      } finally {
        child.kill('SIGINT')
      }
    })
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    // Ctrl-C ends a server with the shell's 128 + SIGINT: the only way these examples stop.
    child.on('close', (exitCode) => {
      clearTimeout(giveUp)
      resolve({code: answered !== undefined && answered < 300 && exitCode === 130 ? 0 : 1, stdout, stderr: `${stderr}\nanswered: ${answered}, exit code after SIGINT: ${exitCode}`})
    })
  })
}
