import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readdir, rm, utimes, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {downloadGoogleFamilies} from '../../src/lib/fonts/google-fonts-download.js'
import {SWEEP_AFTER_MS, sweepTempDirectories} from '../../src/lib/files/temp-directory.js'
import {FIXTURES} from '../render/support.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {until} from '../support/until.js'
import {PROCESSES} from '../support/timeouts.js'

let scratch: string

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'engine-leftovers-'))
})

afterAll(async () => {
  await rm(scratch, {recursive: true, force: true})
})

describe('an output folder the system refuses is an error at once', PROCESSES, () => {
  it('-o /proc/nope/x.mp4 exits with OUTPUT_NOT_WRITABLE instead of spinning', async () => {
    const result = await runCli(['render', join(FIXTURES, 'blocks.html'), '-o', '/proc/nope/x.mp4'], {timeoutMs: 30_000})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[OUTPUT_NOT_WRITABLE\]: --output: cannot write into \/proc\/nope/)
  })
})

describe('temporary directories of killed engine processes are swept, never those of live ones', PROCESSES, () => {
  it('a render SIGKILLed mid-capture leaves its directory; the next engine command removes it once it is old enough', async () => {
    const tmp = join(scratch, 'tmp')
    await mkdir(tmp)
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'render', join(FIXTURES, 'blocks.html'), '--fps', '30', '-q', '-o', join(scratch, 'killed.mp4')], {
      env: {...process.env, TMPDIR: tmp},
      stdio: 'ignore',
    })
    const renderDir = async () => (await readdir(tmp)).find((name) => name.startsWith(`engine-render-p${child.pid}-`))
    expect(await until(async () => (await renderDir()) !== undefined, 60_000)).toBe(true)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    const leftName = (await renderDir())!
    const left = join(tmp, leftName)
    expect(existsSync(left)).toBe(true)

    // A live process's directory, just as old: never touched. Its suffix comes from the directory's
    // own name, never the path (the scratch folder's random name may hold "-h" too).
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {stdio: 'ignore'})
    const liveDir = join(tmp, `engine-render-p${live.pid}-h${leftName.split('-h')[1]}`)
    await mkdir(liveDir)
    try {
      // Not old enough yet: kept.
      expect(await sweepTempDirectories(tmp)).toEqual([])
      const old = new Date(Date.now() - SWEEP_AFTER_MS - 60_000)
      for (const dir of [left, liveDir]) await utimes(dir, old, old)
      // Any engine command sweeps at start, in the background.
      const lint = await runCli(['lint', join(FIXTURES, 'blocks.html')], {env: {TMPDIR: tmp}})
      expect(lint.code, lint.stderr).toBe(0)
      expect(await until(() => !existsSync(left), 10_000)).toBe(true)
      expect(existsSync(liveDir)).toBe(true)
    } finally {
      live.kill('SIGKILL')
    }
  })
})

describe('a Google Fonts family name without letters or digits cannot name the cache', PROCESSES, () => {
  let server: Server
  let api: string

  beforeAll(async () => {
    // Answers any family with one woff2 face, as the real API would for a family it has.
    server = createServer((request, response) => {
      if (request.url?.startsWith('/s/')) return response.writeHead(200, {'content-type': 'font/woff2'}).end(Buffer.concat([Buffer.from('wOF2'), Buffer.alloc(64)]))
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      response.writeHead(200, {'content-type': 'text/css'}).end(`/* latin */\n@font-face {\n  font-family: 'x';\n  font-style: normal;\n  font-weight: 700;\n  src: url(${origin}/s/x.woff2) format('woff2');\n  unicode-range: U+0000-00FF;\n}\n`)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })

  it('"!!!" fails with a reason, and the families already downloaded stay', async () => {
    const cache = join(scratch, 'cache')
    const kept = join(cache, 'fonts', 'google', 'inter-tight', 'package.json')
    await mkdir(join(cache, 'fonts', 'google', 'inter-tight'), {recursive: true})
    await writeFile(kept, '{}')
    const outcome = await downloadGoogleFamilies([{family: '!!!', weights: [700], styles: ['normal']}], {ENGINE_CACHE_DIR: cache, ENGINE_GOOGLE_FONTS_API: api})
    expect(outcome.downloaded).toEqual([])
    expect(outcome.failed).toEqual([{family: '!!!', reason: expect.stringMatching(/has no letters or digits to name it by/)}])
    expect(existsSync(kept)).toBe(true)
  })
})
