import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {VENDORED_FONTS_DIR} from '../../src/lib/fonts/bundled-fonts.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {startNpmRegistry, type NpmRegistry} from './support/npm-registry.js'
import {PROCESSES} from '../support/timeouts.js'

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'fonts')

let scratch: string
let env: NodeJS.ProcessEnv
let registry: NpmRegistry

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'engine-fonts-cli-'))
  // A one-package registry: `@fontsource/anton`, packed from the bundled copy.
  registry = await startNpmRegistry([join(REPO_ROOT, 'node_modules', '@fontsource', 'anton')], scratch)
  env = {ENGINE_CACHE_DIR: join(scratch, 'cache'), npm_config_registry: registry.url, npm_config_cache: join(scratch, 'npm-cache'), npm_config_prefer_online: 'true'}
})
afterAll(async () => {
  registry?.close()
  await rm(scratch, {recursive: true, force: true})
})

function json<T>(stdout: string): T {
  return JSON.parse(stdout) as T
}

describe('engine fonts', PROCESSES, () => {
  it('list shows the bundled families with weights and the generic mapping', async () => {
    const result = await runCli(['fonts', 'list', '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    const list = json<{families: {family: string; source: string; weights: number[]; subsets: string[]}[]; generics: Record<string, string>; substitutes: {names: string[]; family: string}[]}>(result.stdout)
    expect(list.families).toHaveLength((await readdir(VENDORED_FONTS_DIR)).filter((name) => !name.endsWith('.json')).length)
    expect(list.families.find((family) => family.family === 'Arimo')).toMatchObject({source: 'bundled', weights: [400, 500, 600, 700], subsets: ['latin']})
    expect(list.substitutes).toContainEqual(expect.objectContaining({family: 'Arimo', names: expect.arrayContaining(['Arial', 'Helvetica'])}))
    expect(list.families.find((family) => family.family === 'Inter')).toMatchObject({source: 'bundled', weights: [100, 200, 300, 400, 500, 600, 700, 800, 900]})
    expect(list.families.find((family) => family.family === 'Inter')!.subsets).toEqual(expect.arrayContaining(['latin', 'latin-ext', 'cyrillic', 'greek', 'vietnamese']))
    expect(list.generics).toMatchObject({'sans-serif': 'Noto Sans', serif: 'Noto Serif', monospace: 'Noto Sans Mono'})
    const text = await runCli(['fonts', 'list'], {env})
    expect(text.stdout).toMatch(/^JetBrains Mono +bundled 100 200 300 400 500 600 700 800 \(\+ italic\)/m)
    expect(text.stdout).toMatch(/^ui-monospace, SF Mono, Menlo, Monaco, Consolas, .* -> JetBrains Mono \(/m)
  })

  it('resolve names each family, its source and the removed Google Fonts stylesheet', async () => {
    const result = await runCli(['fonts', 'resolve', join(FIXTURES, 'google.html'), '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    const resolution = json<{families: {family: string; source: string; packageName?: string; faces: number}[]; removedUrls: string[]}>(result.stdout)
    expect(resolution.families).toEqual(
      expect.arrayContaining([
        expect.objectContaining({family: 'Inter', source: 'bundled', packageName: '@fontsource/inter', faces: 126}),
        expect.objectContaining({family: 'JetBrains Mono', source: 'bundled'}),
        expect.objectContaining({family: 'Noto Serif', source: 'bundled'}),
      ]),
    )
    expect(resolution.removedUrls).toEqual([expect.stringContaining('fonts.googleapis.com/css2?family=Inter')])
  })

  it('resolve and lint report a family that cannot be resolved', async () => {
    const file = join(scratch, 'missing.html')
    await writeFile(file, `<!doctype html><html><head><style>h1{font-family:"Brand Sans"}</style></head><body><div id="r" data-composition-id="m" data-width="320" data-height="180" data-duration="1"><h1>x</h1></div></body></html>`)
    const resolve = await runCli(['fonts', 'resolve', file], {env})
    expect(resolve.code).toBe(1)
    expect(resolve.stdout).toMatch(/^Brand Sans 400 -> missing \(<style>\)$/m)
    expect(resolve.stdout).toContain('engine fonts add "Brand Sans"')
    const lint = await runCli(['lint', file, '--json'], {env})
    expect(lint.code).toBe(0)
    expect(json<{findings: {code: string; severity: string}[]}>(lint.stdout).findings).toEqual([
      expect.objectContaining({code: 'font-unresolved', severity: 'warning', message: expect.stringContaining('"Brand Sans"')}),
    ])
  })

  it('add installs the Fontsource package through npm into the font cache, where renders find it first', async () => {
    const before = registry.requests()
    const result = await runCli(['fonts', 'add', 'Anton', '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(registry.requests()).toBeGreaterThan(before)
    expect(json<{families: unknown[]}>(result.stdout).families).toEqual([expect.objectContaining({family: 'Anton', packageName: '@fontsource/anton'})])
    const list = json<{families: {family: string; source: string}[]}>((await runCli(['fonts', 'list', '--json'], {env})).stdout)
    expect(list.families.find((family) => family.family === 'Anton')?.source).toBe('cache')
  })

  it('add refuses names that are not family names, and says when the registry has no such family', async () => {
    const hostile = await runCli(['fonts', 'add', '../../etc/passwd'], {env})
    expect(hostile.code).toBe(1)
    expect(hostile.stderr).toMatch(/error \[INVALID_FLAG\]: family "\.\.\/\.\.\/etc\/passwd" may hold only letters/)
    const unknown = await runCli(['fonts', 'add', 'No Such Family'], {env})
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/error \[FONT_FAILED\]: no Fontsource package for "No Such Family" in the npm registry \(looked for @fontsource\/no-such-family\)/)
  })
})
