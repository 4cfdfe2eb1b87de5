import {copyFile, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {terminalText} from '../../src/cli/terminal-text.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

/** Clear the screen, retitle the window, and an OSC 8 link: what a hostile rows file or cache record may hold. */
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\u009b31m\r'

/** User data meets the terminal only through terminalText: its control characters print as \u001b, never act. */
describe('control characters in user data are escaped where engine prints it', PROCESSES, () => {
  let base: string

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'engine-terminal-'))
    await writeFile(join(base, 'package.json'), '{}')
    await copyFile(join(REPO_ROOT, 'test/fixtures/render/swatch.html'), join(base, 'swatch.html'))
  })
  afterAll(async () => {
    await rm(base, {recursive: true, force: true})
  })

  it('terminalText shows controls and bidi overrides as escapes, keeps newlines unless asked, and text as it is', () => {
    expect(terminalText('a\u001b[31mb\u202ec\td\ne')).toBe('a\\u001b[31mb\\u202ec\td\ne')
    expect(terminalText('x\ny\r', {singleLine: true})).toBe('x\\u000ay\\u000d')
    expect(terminalText('Grüße, 東京 — ok')).toBe('Grüße, 東京 — ok')
  })

  it("a rows file's column names in an error", async () => {
    // A carriage return would end the CSV record: the rest of the sequences only.
    const name = `title${HOSTILE.replace('\r', '')}`
    await writeFile(join(base, 'rows.csv'), `${name},${name}\na,b\n`)
    const result = await runCli(['render', 'swatch.html', '--batch', 'rows.csv', '--quiet'], {cwd: base, timeoutMs: 60_000})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('error [BATCH_PREFLIGHT]')
    expect(result.stderr).toContain('title\\u001b[2J\\u001b]0;pwned\\u0007')
    expect(result.stderr).not.toMatch(/[\u001b\u0007\u009b\r]/)
  })

  it("the download cache's records in engine cache ls", async () => {
    const downloads = join(base, 'cache', 'media', 'downloads')
    await mkdir(downloads, {recursive: true})
    await writeFile(join(downloads, 'abc'), 'bytes')
    await writeFile(join(downloads, 'abc.json'), JSON.stringify({url: `https://cdn.example/logo.png${HOSTILE}\nfake line`, contentType: 'image/png', private: false}))
    const result = await runCli(['cache', 'ls'], {cwd: base, env: {ENGINE_CACHE_DIR: join(base, 'cache')}})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('https://cdn.example/logo.png\\u001b[2J')
    expect(result.stdout).toContain('\\u000afake line')
    expect(result.stdout).not.toMatch(/[\u001b\u0007\u009b\r]/)
  })
})
