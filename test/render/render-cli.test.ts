import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {readFile, readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {near, pixelAt} from '../support/media.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {descendants, isAlive} from '../support/child-processes.js'
import {until} from '../support/until.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {FIXTURES, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

const blocks = join(FIXTURES, 'blocks.html')

function jsonEvents(stdout: string): {type: string; [key: string]: unknown}[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
}

describe('engine render (CLI)', PROCESSES, () => {
  const scratch = useScratchDir()
  const pool = useBrowserPool()

  it('--json prints start, progress and done events with the resolved settings', async () => {
    const output = join(scratch(), 'json.mp4')
    const result = await runCli(['render', blocks, '--json', '--quality', 'draft', '--fps', '15', '-o', output])
    expect(result.code).toBe(0)
    const events = jsonEvents(result.stdout)
    const start = events.find((event) => event.type === 'start')
    expect(start).toMatchObject({format: 'mp4', width: 320, height: 180, fps: '15', totalFrames: 30, browser: {beginFrame: true}})
    expect(events.some((event) => event.type === 'progress')).toBe(true)
    expect(events.at(-1)).toMatchObject({type: 'done', output, totalFrames: 30, bytes: expect.any(Number)})
  })

  it('strict variables: exits non-zero before any frame, writes nothing', async () => {
    const output = join(scratch(), 'strict.mp4')
    const result = await runCli(['render', blocks, '--strict-variables', '--variables', '{"colour": "#00ff00", "color": 5}', '-o', output])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/STRICT_VARIABLES/)
    expect(result.stderr).toMatch(/colour/)
    expect(result.stderr).toMatch(/color/)
    expect(existsSync(output)).toBe(false)
  })

  it('without --strict-variables the same problems are warnings and the render completes', async () => {
    const output = join(scratch(), 'lenient.mp4')
    const result = await runCli(['render', blocks, '--quiet', '--fps', '10', '--variables', '{"colour": "#00ff00"}', '-o', output])
    expect(result.code).toBe(0)
    expect(existsSync(output)).toBe(true)
  })

  // Through the CLI where the command checks the value at planning (exit 1, the message on stderr);
  // the options the library refuses as it resolves them are checked in-process below.
  it.each([
    [['--fps', '500'], /--fps: "500" is out of range/],
    [['--format', 'mp5'], /--format: "mp5" is not a known format; did you mean mp4\? use one of mp4, mov, webm, gif, png-sequence/],
  ])('rejects %j naming the flag and the allowed values', async (flags, message) => {
    const output = join(scratch(), 'bad.mp4')
    const result = await runCli(['render', blocks, ...flags, '-o', output])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(message)
    expect(existsSync(output)).toBe(false)
  })

  it.each([
    [{crf: 18, videoBitrate: '8M'}, /--crf and --video-bitrate cannot be combined/],
    [{workers: 30}, /--workers: 30 is invalid/],
    [{quality: 'best'}, /--quality must be draft, standard or high, not "best"/],
  ] as const)('rejects %j naming the flag and the allowed values (as the options resolve)', (options, message) => {
    expect(() => resolveRenderOptions({...(options as RenderOptionsInput), output: join(scratch(), 'bad.mp4')})).toThrow(message)
  })

  it('a composition script that throws fails the render with the page message and leaves nothing', async () => {
    const output = join(scratch(), 'throws.mp4')
    const result = await runCli(['render', join(FIXTURES, 'throws.html'), '-o', output])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/PAGE_ERROR.*the title font failed to load/)
    expect(existsSync(output)).toBe(false)
    expect((await readdir(scratch())).filter((name) => name.includes('throws'))).toEqual([])
  })

  // In-process: the frames are the library's; the CLI's --workers is checked above. Encoded outputs
  // that are identical whatever the split: test/determinism/split-outputs.test.ts.
  it('--workers 1 and --workers 2 give identical png-sequence frames, every time source in place', async () => {
    const [one, two] = ['w1', 'w2'].map((name) => join(scratch(), name))
    for (const [output, workers] of [[one, 1], [two, 2]] as const) {
      await renderComposition({composition: join(FIXTURES, 'motion.html'), options: resolveRenderOptions({format: 'png-sequence', workers, output}), pool})
    }
    const names = (await readdir(one)).sort()
    expect(names).toHaveLength(60)
    expect((await readdir(two)).sort()).toEqual(names)
    for (const name of names) expect((await readFile(join(two, name))).equals(await readFile(join(one, name))), name).toBe(true)

    // Every time source puts its box at x = 140..180 at t = 1 s (frame 30): CSS, WAAPI, rAF, Date + timers.
    const middle = join(one, 'frame_000030.png')
    expect(near(await pixelAt(middle, 0, 160, 20), {r: 255, g: 0, b: 0, a: 255})).toBe(true)
    expect(near(await pixelAt(middle, 0, 160, 65), {r: 0, g: 255, b: 0, a: 255})).toBe(true)
    expect((await pixelAt(middle, 0, 160, 110)).a).toBe(255)
    expect(near(await pixelAt(middle, 0, 160, 155), {r: 255, g: 255, b: 0, a: 255})).toBe(true)
    for (const y of [20, 65, 110, 155]) expect((await pixelAt(middle, 0, 100, y)).a, `nothing left of the boxes at y=${y}`).toBe(0)
  })
})

describe('engine render interrupted', PROCESSES, () => {
  const scratch = useScratchDir()

  it('SIGINT stops the render: non-zero exit, nothing at the output path, no browser or ffmpeg left', async () => {
    const output = join(scratch(), 'interrupted.mp4')
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'render', join(FIXTURES, 'long.html'), '--json', '--workers', '2', '-o', output], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const progressed = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk) => {
        stdout += chunk
        if (stdout.includes('"type":"progress"')) resolve()
      }),
    )
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    // A render that ends before its first progress event fails here with what it said, not at the test's timeout.
    const endedFirst = exited.then((code) => {
      throw new Error(`the render ended (exit ${code}) before any progress event:\n${stdout}\n${stderr}`)
    })
    endedFirst.catch(() => {})
    await Promise.race([progressed, endedFirst])
    const helpers = await descendants(child.pid)
    expect(helpers.map((entry) => entry.name)).toEqual(expect.arrayContaining([expect.stringMatching(/chrom/), 'ffmpeg']))
    child.kill('SIGINT')
    expect(await exited).not.toBe(0)
    expect(stdout).toContain('"code":"CANCELLED"')
    expect(existsSync(output)).toBe(false)
    expect((await readdir(scratch())).filter((name) => name.includes('interrupted'))).toEqual([])
    // The engine has exited; its helpers end on their own signals, a moment later.
    await until(() => helpers.every((entry) => !isAlive(entry.pid)))
    expect(helpers.filter((entry) => isAlive(entry.pid))).toEqual([])
  })
})
