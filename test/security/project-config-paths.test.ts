import {existsSync} from 'node:fs'
import {copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {loadConfig} from '../../src/lib/config/load-config.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * A template folder from elsewhere names files outside itself in its config: a secret to read into
 * the page (variablesFile, batch) or a file to overwrite (output). Untrusted, each is refused
 * naming the key, the path and how to trust the project; nothing is read or written.
 */
describe("a project config's paths stay inside the project", PROCESSES, () => {
  let base: string
  let project: string
  let outside: string

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'engine-config-paths-'))
    project = join(base, 'template')
    outside = join(base, 'victim')
    await mkdir(join(project, 'data'), {recursive: true})
    await mkdir(join(project, '.secrets'))
    await mkdir(outside)
    await writeFile(join(project, 'package.json'), '{}')
    await copyFile(join(REPO_ROOT, 'test/fixtures/render/swatch.html'), join(project, 'swatch.html'))
    await writeFile(join(outside, 'secret.json'), '{"token": "hunter2"}')
    await writeFile(join(outside, 'rows.csv'), 'token\nhunter2\n')
    await writeFile(join(outside, 'old.mp4'), 'precious')
    await writeFile(join(project, 'data/vars.json'), '{"title": "inside"}')
    await writeFile(join(project, '.secrets/vars.json'), '{"title": "dot"}')
    await symlink(outside, join(project, 'data/link'))
    await symlink(join(outside, 'new-file.mp4'), join(project, 'dangling.mp4'))
  })

  afterAll(async () => {
    await rm(base, {recursive: true, force: true})
  })

  const configure = (config: object, file = 'engine.config.json') => writeFile(join(project, file), JSON.stringify(config))
  const load = (trusted = false, cwd = project) => loadConfig(cwd, {trusted})
  const clear = async () => {
    for (const file of ['engine.config.json', '.enginerc.yaml']) await rm(join(project, file), {force: true})
    await writeFile(join(project, 'package.json'), '{}')
  }

  const hostile: Array<[string, () => object]> = [
    ['an absolute variablesFile', () => ({variablesFile: join(base, 'victim/secret.json')})],
    ['a ../ batch', () => ({batch: '../victim/rows.csv', batchFormat: 'csv'})],
    ['a ../ output', () => ({output: '../victim/old.mp4'})],
    ['a variablesFile through a symlinked folder', () => ({variablesFile: 'data/link/secret.json'})],
    ['an output through a dangling symlink', () => ({output: 'dangling.mp4'})],
    ['a png-sequence output folder outside', () => ({output: '../victim/frames', format: 'png-sequence'})],
  ]

  for (const [what, make] of hostile) {
    it(`refuses ${what}, naming the key, the path and the trust option`, async () => {
      const config = make()
      await clear()
      await configure(config)
      const key = Object.keys(config)[0]
      const value = (config as Record<string, string>)[key]
      const error = await load().then(() => undefined, (caught: unknown) => caught as {code: string; message: string})
      expect(error?.code).toBe('INVALID_CONFIG')
      expect(error?.message).toContain(`key "${key}": "${value}" leads outside the project`)
      expect(error?.message).toContain('--trust-project-config')
    })
  }

  it('refuses dot-files and dot-folders inside the project too', async () => {
    for (const variablesFile of ['.secrets/vars.json', 'data/../.secrets/vars.json']) {
      await clear()
      await configure({variablesFile})
      await expect(load()).rejects.toThrow(/key "variablesFile": ".*" names a dot-file or dot-folder/)
    }
  })

  it('holds every config form alike: .enginerc.yaml and the "engine" key of package.json', async () => {
    await clear()
    await writeFile(join(project, '.enginerc.yaml'), 'output: ../victim/old.mp4\n')
    await expect(load()).rejects.toThrow(/\.enginerc\.yaml: key "output": "\.\.\/victim\/old\.mp4" leads outside/)
    await clear()
    await writeFile(join(project, 'package.json'), JSON.stringify({engine: {variablesFile: '../victim/secret.json'}}))
    await expect(load()).rejects.toThrow(/package\.json: key "variablesFile"/)
  })

  it('accepts paths inside the project (also from a subfolder), standard output, and anything once trusted', async () => {
    await clear()
    await configure({variablesFile: 'data/vars.json', output: 'renders/out.mp4'})
    expect((await load()).options.variablesFile).toBe('data/vars.json')
    await configure({variablesFile: '../data/vars.json'})
    expect((await load(false, join(project, 'data'))).options.variablesFile).toBe('../data/vars.json')
    await configure({output: '-'})
    expect((await load()).options.output).toBe('-')
    await configure({variablesFile: '../victim/secret.json', output: '../victim/old.mp4'})
    expect((await load(true)).options.output).toBe('../victim/old.mp4')
  })

  it('engine render refuses the config before anything is read or written', async () => {
    await clear()
    await configure({output: '../victim/old.mp4', variablesFile: 'data/vars.json'})
    const result = await runCli(['render', 'swatch.html', '--quiet'], {cwd: project, env: {ENGINE_TRUST_PROJECT_CONFIG: '', ENGINE_CONFIG_DIR: join(base, 'user')}, timeoutMs: 60_000})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[INVALID_CONFIG\]: .*engine\.config\.json: key "output": "\.\.\/victim\/old\.mp4" leads outside the project/)
    expect(await readFile(join(outside, 'old.mp4'), 'utf8')).toBe('precious')
    expect(existsSync(join(outside, 'new-file.mp4'))).toBe(false)
  })
})
