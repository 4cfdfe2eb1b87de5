import {existsSync} from 'node:fs'
import {copyFile, mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

/** Outputs the system refuses are refused at preflight with their own codes, never INTERNAL after the work. */
describe('output paths the system cannot write', PROCESSES, () => {
  let project: string
  const long = 'n'.repeat(300)

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'engine-output-paths-'))
    await writeFile(join(project, 'package.json'), '{}')
    await copyFile(join(REPO_ROOT, 'test/fixtures/render/swatch.html'), join(project, 'swatch.html'))
  })
  afterAll(async () => {
    await rm(project, {recursive: true, force: true})
  })

  const run = (args: string[]) => runCli(args, {cwd: project, timeoutMs: 60_000})

  it('still -o into a folder the system refuses is OUTPUT_NOT_WRITABLE, as render is', async () => {
    for (const command of ['still', 'render']) {
      const result = await run([command, 'swatch.html', '-o', `/proc/nope/x.${command === 'still' ? 'png' : 'mp4'}`, '--quiet'])
      expect(result.code, command).toBe(1)
      expect(result.stderr, command).toMatch(/^error \[OUTPUT_NOT_WRITABLE\]: --output: cannot write into \/proc\/nope/m)
    }
  })

  it('a 300-byte name is refused before rendering, naming the limit, for render, still and each batch row', async () => {
    for (const [command, output] of [['render', `${long}.mp4`], ['still', `${long}.png`], ['render', `deep/${long}/x.mp4`]]) {
      const result = await run([command, 'swatch.html', '-o', output, '--quiet'])
      expect(result.code, output).toBe(1)
      expect(result.stderr, output).toMatch(/^error \[INVALID_FLAG\]: --output: the (file|folder) name "n+…" is 30\d bytes long; (an output's name|a name) has at most (232|255)/m)
    }
    await writeFile(join(project, 'rows.csv'), `title\n${'t'.repeat(100)}\nshort\n`)
    const batch = await run(['render', 'swatch.html', '--batch', 'rows.csv', '-o', 'out/{title}{title}{title}.mp4', '--quiet'])
    expect(batch.code).toBe(1)
    expect(batch.stderr).toMatch(/^error \[BATCH_PREFLIGHT\]: [^]*row 0[^]*--output: the file name "t+…" is 304 bytes long/m)
    expect(batch.stderr).not.toMatch(/INTERNAL|ENAMETOOLONG/)
    expect(existsSync(join(project, 'out')) ? await readdir(join(project, 'out')) : []).toEqual([])
  })
})
