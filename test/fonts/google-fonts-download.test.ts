import {existsSync} from 'node:fs'
import {cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {DOWNLOAD_RETRY_AFTER_MS, downloadGoogleFamilies} from '../../src/lib/fonts/google-fonts-download.js'
import {renderStill} from '../../src/lib/still/render-still.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {overrideEnv} from '../support/override-env.js'
import {runCli} from '../support/run-cli.js'
import {startGoogleFontsApi, STAND_IN_FAMILY, STAND_IN_LATIN_700, type GoogleFontsApi} from './support/google-fonts-api.js'

function page(family: string, head: string): string {
  return `<!doctype html><html><head>${head}<style>
  html, body { margin: 0; background: #fff; }
  h1 { position: absolute; left: 8px; top: 40px; margin: 0; font: 700 40px '${family}'; color: #000; }
</style></head><body><div id="r" data-composition-id="g" data-width="320" data-height="180" data-duration="1"><h1>Hamburgefonstiv</h1></div></body></html>`
}

function googleLink(family: string, tuples: string): string {
  return `<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=${family.replaceAll(' ', '+')}:wght@${tuples}&display=swap">`
}

describe('families of a Google Fonts stylesheet are downloaded once into the cache', {timeout: 120_000}, () => {
  let scratch: string
  let project: string
  let api: GoogleFontsApi
  let env: NodeJS.ProcessEnv
  let restoreEnv: (() => void) | undefined
  const pool = useBrowserPool()

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-google-fonts-'))
    project = join(scratch, 'project')
    await mkdir(project, {recursive: true})
    await writeFile(join(project, 'package.json'), '{}')
    api = await startGoogleFontsApi('http://127.0.0.2:9')
    env = {ENGINE_CACHE_DIR: join(scratch, 'cache'), ENGINE_GOOGLE_FONTS_API: api.url}
    // The in-process stills read the same cache and API as the CLIs this file starts.
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: env.ENGINE_CACHE_DIR!, ENGINE_GOOGLE_FONTS_API: api.url})
  })
  afterAll(async () => {
    restoreEnv?.()
    await api?.close()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  async function still(name: string, html: string, extraEnv: NodeJS.ProcessEnv = {}) {
    await writeFile(join(project, `${name}.html`), html)
    const output = join(scratch, `${name}.png`)
    const result = await runCli(['still', join(project, `${name}.html`), '-o', output], {env: {...env, ...extraEnv}})
    return {...result, output}
  }

  /** The same still in-process, in the file's warm browsers; its warnings' messages. */
  async function stillInProcess(name: string, html: string, extraEnv: Record<string, string> = {}) {
    await writeFile(join(project, `${name}.html`), html)
    const output = join(scratch, `${name}.png`)
    const warnings: string[] = []
    const restore = overrideEnv(extraEnv)
    try {
      await renderStill({composition: join(project, `${name}.html`), options: resolveRenderOptions({output}), pool, onEvent: (event) => void (event.type === 'warning' && warnings.push(event.message))})
    } finally {
      restore()
    }
    return {output, warnings: warnings.join('\n')}
  }

  it('renders the downloaded family like an @font-face of the same file, and fetches it only once', async () => {
    // 400 is not a weight of the family: the API refuses the pair, and the faces are asked for one by one.
    const first = await still('google', page(STAND_IN_FAMILY, googleLink(STAND_IN_FAMILY, '400;700')))
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).not.toMatch(/font-fallback/)
    const stylesheets = api.requests.filter((path) => path.startsWith('/css2'))
    expect(stylesheets.map((path) => decodeURIComponent(path.slice(path.indexOf('@') + 1).split('&')[0]))).toEqual(['0,400;0,700', '0,400', '0,700'])
    // The served subsets engine uses (latin, latin-ext, vietnamese), and nothing from the page itself.
    expect(api.requests.filter((path) => path.startsWith('/s/')).sort()).toEqual([
      '/s/playfair-display-latin-700-normal.woff2',
      '/s/playfair-display-latin-ext-700-normal.woff2',
      '/s/playfair-display-vietnamese-700-normal.woff2',
    ])
    const downloaded = join(env.ENGINE_CACHE_DIR!, 'fonts', 'google', 'engine-test-display')
    expect((await readdir(join(downloaded, 'files'))).sort()).toEqual([
      'engine-test-display-latin-700-normal.woff2',
      'engine-test-display-latin-ext-700-normal.woff2',
      'engine-test-display-vietnamese-700-normal.woff2',
    ])

    const answered = api.requests.length
    const again = await stillInProcess('google-again', page(STAND_IN_FAMILY, googleLink(STAND_IN_FAMILY, '400;700')))
    expect(api.requests.length).toBe(answered)
    expect((await readFile(again.output)).equals(await readFile(first.output))).toBe(true)

    await cp(STAND_IN_LATIN_700, join(project, 'display-700.woff2'))
    const fontFace = "<style>@font-face { font-family: 'Reference'; src: url(display-700.woff2) format('woff2'); font-weight: 700; }</style>"
    const reference = await stillInProcess('reference', page('Reference', fontFace))
    expect((await readFile(reference.output)).equals(await readFile(first.output))).toBe(true)

    const list = await runCli(['fonts', 'list'], {env})
    expect(list.stdout).toMatch(/^Engine Test Display\s+cache\s+700; latin latin-ext vietnamese\s+@google-fonts\/engine-test-display@0\.0\.0-downloaded\.\d{8}$/m)
  })

  it('refuses answers it should not trust, and stays quick and clear offline; the render goes on with a warning', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['Engine Elsewhere', {}, /points at http:\/\/127\.0\.0\.2:9\/s\/\S+, not at http:\/\/127\.0\.0\.1:\d+/],
      ['Engine Not Woff', {}, /not-a-font\.woff2 is not a woff2 font/],
      ['Engine Huge', {}, /huge\.woff2 is larger than 5 MiB/],
      ['Engine Unknown', {}, /Google Fonts has no family "Engine Unknown" with weight 700/],
      ['Engine Offline', {ENGINE_GOOGLE_FONTS_API: 'http://127.0.0.1:9'}, /cannot reach 127\.0\.0\.1:9/],
    ]
    for (const [family, extraEnv, reason] of cases) {
      const result = await stillInProcess(family.replaceAll(' ', '-'), page(family, googleLink(family, '700')), extraEnv)
      expect(existsSync(result.output), family).toBe(true)
      expect(result.warnings).toMatch(new RegExp(`font-family "${family}".*Downloading it from Google Fonts failed: `))
      expect(result.warnings, family).toMatch(reason)
      expect(result.warnings).toContain(`engine fonts add "${family}"`)
    }
    const kept = await readdir(join(env.ENGINE_CACHE_DIR!, 'fonts', 'google'))
    expect(kept).toEqual(['engine-test-display'])
  })

  it('in a long-running process, tries a family that failed again only after a while', async () => {
    const request = {family: 'Engine Retry Later', weights: [700], styles: ['normal' as const]}
    const asked = () => api.requests.filter((path) => decodeURIComponent(path).replaceAll('+', ' ').includes(request.family)).length
    const download = () => downloadGoogleFamilies([request], {...process.env, ...env})
    const first = await download()
    expect(first.failed).toEqual([{family: request.family, reason: expect.stringMatching(/no family "Engine Retry Later"/)}])
    const before = asked()
    expect(before).toBeGreaterThan(0)
    expect((await download()).failed[0].reason).toBe(first.failed[0].reason)
    expect(asked()).toBe(before)
    vi.useFakeTimers({toFake: ['Date']})
    try {
      vi.setSystemTime(Date.now() + DOWNLOAD_RETRY_AFTER_MS + 1000)
      expect((await download()).failed).toHaveLength(1)
      expect(asked()).toBeGreaterThan(before)
    } finally {
      vi.useRealTimers()
    }
  })

  it('--no-network renders without downloading, with the warning', async () => {
    const before = api.requests.length
    await writeFile(join(project, 'hermetic.html'), page('Engine Never', googleLink('Engine Never', '700')))
    const result = await runCli(['still', join(project, 'hermetic.html'), '-o', join(scratch, 'hermetic.png'), '--no-network'], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/font-family "Engine Never".*falls back/)
    expect(result.stderr).not.toMatch(/Downloading it/)
    expect(api.requests.length).toBe(before)
  })
})
