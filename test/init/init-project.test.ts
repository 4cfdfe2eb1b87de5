import {existsSync, readFileSync} from 'node:fs'
import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {extractCompositionMetadata} from '../../src/lib/compose/extract-composition-metadata.js'
import {loadConfig} from '../../src/lib/config/load-config.js'
import {openRowSource, readRows} from '../../src/lib/batch/index.js'
import {lintComposition} from '../../src/lib/lint/index.js'
import {listTemplates} from '../../src/lib/init/project-templates.js'
import {runCli} from '../support/run-cli.js'

describe('engine init', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-init-'))
  })
  afterEach(() => rm(dir, {recursive: true, force: true}))

  it('writes a project (composition with variables, rows, config, README) and prints the next three commands after the cd', async () => {
    const result = await runCli(['init', 'my-video'], {cwd: dir})
    expect(result.code, result.stderr).toBe(0)
    expect((await readdir(join(dir, 'my-video'))).sort()).toEqual(['README.md', 'card.html', 'engine.config.json', 'index.html', 'rows.csv'])
    expect(result.stdout).toContain('Created a hello project in my-video')
    const next = result.stdout.split('Next:\n')[1].trim().split('\n').map((line) => line.trim())
    expect(next).toEqual(['cd my-video', 'engine preview index.html', 'engine render index.html', 'engine render index.html --batch rows.csv'])
  })

  it('ships only templates that lint clean, whose rows set declared variables and whose config loads', async () => {
    const templates = await listTemplates()
    expect(templates).toEqual(['hello', 'lower-third'])
    for (const template of templates) {
      const project = join(dir, template)
      const result = await runCli(['init', project, '--template', template, '--json'], {cwd: dir})
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({directory: project, template, next: expect.arrayContaining(['engine render index.html'])})
      const index = join(project, 'index.html')
      expect(await lintComposition(index, {alpha: template === 'lower-third'}), template).toEqual([])
      const {variables} = extractCompositionMetadata(readFileSync(index, 'utf8'))
      expect(variables.length).toBeGreaterThanOrEqual(3)
      let rows = 0
      for await (const row of readRows(await openRowSource(join(project, 'rows.csv')), variables)) {
        expect(row.problems, `${template} rows.csv line ${row.line}`).toEqual([])
        rows++
      }
      expect(rows).toBeGreaterThan(1)
      expect((await loadConfig(project)).filepath).toBe(join(project, 'engine.config.json'))
      expect(readFileSync(join(project, 'README.md'), 'utf8')).toContain('engine render index.html')
    }
  })

  it('writes nothing into a folder that already has one of its files, unless --force', async () => {
    await writeFile(join(dir, 'index.html'), '<p>mine</p>')
    const refused = await runCli(['init'], {cwd: dir})
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/already has index\.html: nothing was written.*--force/)
    expect(await readdir(dir)).toEqual(['index.html'])
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('<p>mine</p>')

    const forced = await runCli(['init', '--force'], {cwd: dir})
    expect(forced.code, forced.stderr).toBe(0)
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toContain('data-composition-variables')
    expect(forced.stdout).not.toContain('cd ')
  })

  it('refuses a template name that is not a shipped template, listing those there are (no path escapes)', async () => {
    for (const name of ['nope', '../hello', '../../src', 'format-plugin']) {
      const result = await runCli(['init', 'x', '--template', name], {cwd: dir})
      expect(result.code, name).toBe(1)
      expect(result.stderr).toContain(`error [INVALID_FLAG]: --template: no template "${name}"; choose hello or lower-third`)
    }
    expect(existsSync(join(dir, 'x'))).toBe(false)
  })

  it('refuses a file where the project folder should be', async () => {
    await writeFile(join(dir, 'taken'), 'a file')
    const result = await runCli(['init', 'taken'], {cwd: dir})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('is a file, not a folder')
  })
})
