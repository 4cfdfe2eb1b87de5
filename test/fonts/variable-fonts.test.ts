import {cp, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {startNpmRegistry, type NpmRegistry} from './support/npm-registry.js'

/** `@fontsource-variable/inter`, trimmed to latin upright (its one wght-axis file is the real one). */
const VARIABLE_INTER = join(REPO_ROOT, 'test', 'fixtures', 'fonts', 'variable-inter')
const WOFF2 = join(VARIABLE_INTER, 'files', 'inter-latin-wght-normal.woff2')

function page(weight: number, family: string, fontFace = ''): string {
  return `<!doctype html><html><head><style>${fontFace}
  html, body { margin: 0; background: #fff; }
  h1 { position: absolute; left: 8px; top: 40px; margin: 0; font: ${weight} 40px ${family}; color: #000; }
</style></head><body><div id="r" data-composition-id="v" data-width="320" data-height="180" data-duration="1"><h1>Hamburgefonstiv</h1></div></body></html>`
}

describe('variable fonts (@fontsource-variable)', {timeout: 120_000}, () => {
  let scratch: string
  let env: NodeJS.ProcessEnv
  let registry: NpmRegistry

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-variable-fonts-'))
    registry = await startNpmRegistry([VARIABLE_INTER], scratch)
    env = {ENGINE_CACHE_DIR: join(scratch, 'cache'), npm_config_registry: registry.url, npm_config_cache: join(scratch, 'npm-cache'), npm_config_prefer_online: 'true'}
  })
  afterAll(async () => {
    registry?.close()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  async function still(name: string, html: string): Promise<Buffer> {
    const project = join(scratch, 'project')
    await mkdir(project, {recursive: true})
    await writeFile(join(project, 'package.json'), '{}')
    await writeFile(join(project, `${name}.html`), html)
    const output = join(scratch, `${name}.png`)
    const result = await runCli(['still', join(project, `${name}.html`), '-o', output, '--strict-fonts'], {env})
    expect(result.code, result.stderr).toBe(0)
    return readFile(output)
  }

  it('fonts add --variable installs it into the cache; list shows its weight range', async () => {
    const added = await runCli(['fonts', 'add', 'Inter', '--variable', '--json'], {env})
    expect(added.code, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout).families).toEqual([
      expect.objectContaining({family: 'Inter', packageName: '@fontsource-variable/inter', variableWeight: {min: 100, max: 900, default: 400}}),
    ])
    const list = await runCli(['fonts', 'list'], {env})
    expect(list.stdout).toMatch(/^Inter\s+cache\s+100-900 \(variable\); latin\s+@fontsource-variable\/inter@5\.3\.0$/m)
    const missing = await runCli(['fonts', 'add', 'Anton', '--variable'], {env})
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/looked for @fontsource-variable\/anton\).*drop --variable/)
  })

  it('draws a weight between the static ones as designed, and the same pixels as an @font-face of the same file', async () => {
    const [w400, w450, w500] = await Promise.all([400, 450, 500].map((weight) => still(`inter-${weight}`, page(weight, 'Inter'))))
    // A static family rounds 450 to 400 or 500; the variable one draws it in between.
    expect(w450.equals(w400)).toBe(false)
    expect(w450.equals(w500)).toBe(false)
    await cp(WOFF2, join(scratch, 'project', 'inter-variable.woff2'))
    const fontFace = "@font-face { font-family: 'Ref'; src: url(inter-variable.woff2) format('woff2'); font-weight: 100 900; }"
    expect((await still('reference-450', page(450, 'Ref', fontFace))).equals(w450)).toBe(true)
  })
})
