import {execFile} from 'node:child_process'
import {mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {overrideEnv} from '../support/override-env.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {shadowFontConfig} from '../support/shadow-font-config.js'

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'fonts')
const run = promisify(execFile)

let scratch: string
let env: NodeJS.ProcessEnv
let restoreEnv: (() => void) | undefined
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'engine-fonts-render-'))
  env = {ENGINE_CACHE_DIR: join(scratch, 'cache')}
  // The in-process renders read the same font cache as the CLIs this file starts.
  restoreEnv = overrideEnv({ENGINE_CACHE_DIR: env.ENGINE_CACHE_DIR!})
})
afterAll(async () => {
  restoreEnv?.()
  await rm(scratch, {recursive: true, force: true})
})
const pool = useBrowserPool()

async function frames(directory: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.png')).sort()
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(directory, name))] as const)))
}

/** png-sequence frames of a fixture, rendered in-process in the file's warm browsers. */
async function render(fixture: string, name: string, options: RenderOptionsInput = {}): Promise<Map<string, Buffer>> {
  const output = join(scratch, name)
  await renderComposition({composition: join(FIXTURES, fixture), options: resolveRenderOptions({format: 'png-sequence', ...options, output}), pool})
  return frames(output)
}

/** The same through `engine render`, as a user runs it, with more environment (a browser launched with it). */
async function renderWithCli(fixture: string, name: string, extraEnv: NodeJS.ProcessEnv): Promise<Map<string, Buffer>> {
  const output = join(scratch, name)
  const result = await runCli(['render', join(FIXTURES, fixture), '--format', 'png-sequence', '-o', output, '--quiet'], {env: {...env, ...extraEnv}})
  expect(result.code, result.stderr).toBe(0)
  return frames(output)
}

function expectSame(actual: Map<string, Buffer>, expected: Map<string, Buffer>, what: string): void {
  expect([...actual.keys()], what).toEqual([...expected.keys()])
  for (const [name, bytes] of expected) expect(actual.get(name)!.equals(bytes), `${what}: ${name}`).toBe(true)
}

// Several renders per test on a shared two-core machine.
const SLOW = {timeout: 300_000}

describe('fonts in renders', SLOW, () => {
  let explicit: Map<string, Buffer>
  beforeAll(async () => {
    explicit = await render('explicit.html', 'explicit')
  }, 300_000)

  it('renders families named by font-family alone, and a Google Fonts <link> with no network, pixel-identical to @font-face rules on the real files', async () => {
    // Accented, Cyrillic, Greek and Vietnamese text is part of the page: those subsets are served too.
    expectSame(await render('family.html', 'family'), explicit, 'font-family only')
    expectSame(await render('google.html', 'google'), explicit, 'Google Fonts link')
    const roboto = await render('roboto.html', 'roboto')
    expect(roboto.get('frame_000000.png')!.equals(explicit.get('frame_000000.png')!), 'another family draws other pixels').toBe(false)
  })

  it('gives the same bytes across runs and for 1 or 2 workers', async () => {
    const one = await render('family.html', 'one-worker', {workers: 1})
    const two = await render('family.html', 'two-workers', {workers: 2})
    expect(one.size).toBe(6)
    expectSame(two, one, '1 vs 2 workers')
    expectSame(await render('family.html', 'again', {workers: 1}), one, 'second run')
  })

  it('is not changed by a host font that shares its name with a bundled family', async () => {
    const {config, shadow} = await shadowFontConfig(join(scratch, 'host-fonts'), {source: '/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf', family: 'Inter'})
    const hostEnv = {FONTCONFIG_FILE: config}
    const {stdout} = await run('fc-match', ['-f', '%{file}', 'Inter:bold'], {env: {...process.env, ...hostEnv}})
    expect(stdout, 'the host now has a font named Inter').toBe(shadow)
    expectSame(await renderWithCli('family.html', 'host-inter', hostEnv), explicit, 'host font named Inter')
  })
})

describe('missing fonts', SLOW, () => {
  const missing = `<!doctype html><html><head><style>body{margin:0} h1{font-family:"Brand Sans", Inter; font-weight:700}</style></head><body><div id="root" data-composition-id="m" data-width="320" data-height="180" data-duration="0.1"><h1>Brand</h1><p style="font-family: 'Bebas Neue'">Привет</p></div></body></html>`

  it('warns, naming the family and the fix, and renders', async () => {
    const file = join(scratch, 'missing.html')
    await writeFile(file, missing)
    const result = await runCli(['render', file, '--format', 'png-sequence', '-o', join(scratch, 'missing-out'), '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    const warnings = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as {type: string; code?: string; message?: string})
      .filter((event) => event.type === 'warning' && event.code === 'font-fallback')
    expect(warnings.map((warning) => warning.message)).toEqual([
      expect.stringMatching(/"Brand Sans" \(weight 700\).*engine fonts add "Brand Sans"/),
      expect.stringMatching(/"Bebas Neue" 400 has no glyphs for "П".*<p> "Привет"/),
    ])
  })

  it('--strict-fonts exits non-zero before capturing and writes nothing', async () => {
    const file = join(scratch, 'strict.html')
    await writeFile(file, missing)
    const output = join(scratch, 'strict.mp4')
    const result = await runCli(['render', file, '-o', output, '--strict-fonts'], {env})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[FONT_MISSING\]: --strict-fonts: .*"Brand Sans"/s)
    await expect(stat(output)).rejects.toMatchObject({code: 'ENOENT'})

    // Text outside every served subset of its family is a fallback too: found in the page, before the first frame.
    const glyphs = join(scratch, 'glyphs.html')
    await writeFile(glyphs, missing.replace('"Brand Sans", ', ''))
    const strictGlyphs = await runCli(['render', glyphs, '-o', output, '--strict-fonts'], {env})
    expect(strictGlyphs.code).toBe(1)
    expect(strictGlyphs.stderr).toMatch(/FONT_MISSING.*"Bebas Neue" 400 has no glyphs/s)
    await expect(stat(output)).rejects.toMatchObject({code: 'ENOENT'})
  })

  it('fails with the family and the file when a served face does not load', async () => {
    // A cached package (it shadows the bundled one) whose font file is damaged past its signature.
    const cache = join(scratch, 'corrupt-cache')
    const directory = join(cache, 'fonts', 'packages', 'node_modules', '@fontsource', 'inter')
    await mkdir(join(directory, 'files'), {recursive: true})
    await writeFile(join(directory, 'package.json'), JSON.stringify({name: '@fontsource/inter', version: '9.9.9'}))
    await writeFile(join(directory, 'metadata.json'), JSON.stringify({id: 'inter', family: 'Inter', subsets: ['latin'], weights: [400], styles: ['normal']}))
    await writeFile(join(directory, 'unicode.json'), JSON.stringify({latin: 'U+0000-00FF'}))
    await writeFile(join(directory, 'files', 'inter-latin-400-normal.woff2'), Buffer.concat([Buffer.from('wOF2'), Buffer.alloc(200, 7)]))
    const file = join(scratch, 'corrupt.html')
    await writeFile(file, missing.replace('"Brand Sans", ', ''))
    const result = await runCli(['render', file, '-o', join(scratch, 'corrupt.mp4')], {env: {ENGINE_CACHE_DIR: cache}})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[FONT_FAILED\]: font "Inter" 400 normal did not load from @fontsource\/inter\/files\/inter-latin-400-normal\.woff2/)
  })
})
