import {execFile, spawn} from 'node:child_process'
import {readdir, readFile, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'

const exec = promisify(execFile)
const BIN = join(REPO_ROOT, 'bin', 'run.js')
const COLOR = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')
const engine = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`
const userEnv = {NODE_ENV: undefined}

/** Runs a shell line (for its redirections) with engine on this test's Node. */
async function sh(line: string, input?: string): Promise<{code: number; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], {cwd: REPO_ROOT, env: {...process.env, ...userEnv}, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe']})
    if (input !== undefined) child.stdin!.end(input)
    let stderr = ''
    child.stderr!.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code: code ?? -1, stderr})
    })
  })
}

/** Temporary directories engine made for -o - and left behind. */
async function stdoutTempDirectories(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('engine-stdout-'))
}

describe('`-` for standard input and output, and --json on the remaining commands', {timeout: 180_000}, () => {
  const scratch = useScratchDir('engine-conventions-stdio-')

  it('render -o - writes the finished video to stdout, variables from stdin, the summary to stderr', async () => {
    const before = await stdoutTempDirectories()
    const file = join(scratch(), 'piped.webm')
    const rendered = await sh(`${engine} render ${COLOR} --format webm --frames 0-5 --variables-file - -o - > ${file}`, '{"color": "#ff0000"}')
    expect(rendered.code, rendered.stderr).toBe(0)
    expect(rendered.stderr).toMatch(/standard output: 6 frames, /)
    expect(await probeVideoStream(file)).toMatchObject({codec_name: 'vp9', width: 320, height: 180, nb_read_frames: '6'})
    expect(near(await pixelAt(file, 3, 200, 150), {r: 255, g: 0, b: 0})).toBe(true)
    expect(await stdoutTempDirectories()).toEqual(before)

    const still = join(scratch(), 'still.png')
    const snapped = await sh(`${engine} still ${COLOR} --variables '{"color": "#0000ff"}' -o - > ${still}`)
    expect(snapped.code, snapped.stderr).toBe(0)
    expect((await readFile(still)).subarray(1, 4).toString()).toBe('PNG')
    expect(near(await pixelAt(still, 0, 200, 150), {r: 0, g: 0, b: 255})).toBe(true)
  })

  it('refuses -o - where standard output is taken or not a file, naming the flag, and writes nothing', async () => {
    for (const [args, flag] of [
      [['--batch', join(REPO_ROOT, 'examples', 'hello', 'rows.jsonl')], '--batch'],
      [['--json'], '--json'],
      [['--format', 'png-sequence'], '--format png-sequence (a directory of files)'],
      [['--poster', '0'], '--poster'],
    ] as const) {
      const refused = await runCli(['render', COLOR, '-o', '-', ...args], {env: userEnv})
      expect(refused.code, flag).toBe(1)
      const message = `--output - writes the file to standard output, which ${flag} cannot share`
      // With --json the error itself is the JSON line on stdout.
      if (flag === '--json') expect(JSON.parse(refused.stdout)).toMatchObject({type: 'error', error: {code: 'INVALID_FLAG', message: expect.stringContaining(message)}})
      else expect(refused).toMatchObject({stdout: '', stderr: expect.stringContaining(`error [INVALID_FLAG]: ${message}`)})
    }
    const both = await runCli(['render', COLOR, '--variables-file', '-', '--batch', '-'], {env: userEnv, input: '{}'})
    expect(both).toMatchObject({code: 1, stderr: expect.stringContaining('--variables-file - and --batch - both read standard input')})
    // At a terminal: refused before anything renders.
    const {stdout} = await exec('script', ['-qec', `${engine} render ${COLOR} -o -; echo "exit $?"`, '/dev/null'], {cwd: REPO_ROOT, env: {...process.env, ...userEnv}, timeout: 60_000})
    expect(stdout.replaceAll('\r\n', '\n')).toMatch(/--output -: standard output is a terminal, not a file;[^\n]*\nexit 1\n/)
  })

  it('a failed render to stdout writes nothing there and leaves no temporary file', async () => {
    const before = await stdoutTempDirectories()
    const file = join(scratch(), 'failed.mp4')
    const failed = await sh(`${engine} render ${join(scratch(), 'missing.html')} -o - > ${file}`)
    expect(failed.code).toBe(1)
    expect((await stat(file)).size).toBe(0)
    expect(await stdoutTempDirectories()).toEqual(before)
  })

  it('serve --json prints one object a line, the first with the URL; docker build --context --json the build command', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--json', '--root', join(REPO_ROOT, 'test', 'server', 'fixtures')], {
      cwd: REPO_ROOT,
      env: {...process.env, ...userEnv},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    let out = ''
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk) => {
        out += chunk
        if (out.includes('\n')) resolve()
      }),
    )
    const listening = JSON.parse(out.split('\n')[0]) as {type: string; url: string; maxConcurrentRenders: number}
    expect(listening).toMatchObject({type: 'listening', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), maxConcurrentRenders: expect.any(Number)})
    expect((await fetch(`${listening.url}/health`, {signal: AbortSignal.timeout(20_000)})).status).toBe(200)
    child.kill('SIGTERM')
    expect(await closed).toBe(0)
    clearTimeout(killer)
    const lines = out.trim().split('\n').map((line) => JSON.parse(line) as {type: string})
    expect(lines.at(-1)).toMatchObject({type: 'stopping', signal: 'SIGTERM'})
    expect(lines.every((line) => ['listening', 'log', 'stopping'].includes(line.type))).toBe(true)

    const context = join(scratch(), 'image-context')
    const built = await runCli(['docker', 'build', '--context', context, '--json'], {env: userEnv})
    expect(built.code, built.stderr).toBe(0)
    const described = JSON.parse(built.stdout) as {tag: string; contextDir: string; command: string[]}
    expect(described).toMatchObject({tag: expect.stringMatching(/^engine-render:/), contextDir: context})
    expect(described.command.slice(0, 2)).toEqual(['docker', 'build'])
    expect(described.command.at(-1)).toBe(context)
  })
})
