import {mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {load} from 'cheerio'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import {cacheFontFile} from '../../src/lib/fonts/font-assets.js'
import {ensureFontFiles} from '../../src/lib/fonts/ensure-font-files.js'
import {bundledFontPackageDirectories, VENDORED_FONTS_DIR} from '../../src/lib/fonts/bundled-fonts.js'
import {fontFilePath, loadFontCatalog} from '../../src/lib/fonts/font-catalog.js'
import {GENERIC_FAMILY_FACES} from '../../src/lib/fonts/generic-families.js'

let dir: string
let env: NodeJS.ProcessEnv
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-fonts-'))
  env = {ENGINE_CACHE_DIR: join(dir, 'cache')}
})
afterAll(async () => {
  await rm(dir, {recursive: true, force: true})
})

async function composition(name: string, head: string, body: string): Promise<string> {
  const file = join(dir, name)
  await writeFile(
    file,
    `<!doctype html><html><head>${head}</head><body><div id="root" data-composition-id="c" data-width="320" data-height="180" data-duration="1">${body}</div></body></html>`,
  )
  return file
}

describe('the fonts stage of compile', () => {
  it('resolves families named by font-family alone to bundled Fontsource files, served from the font cache', async () => {
    const file = await composition(
      'family-only.html',
      '<style>h1 { font: 700 40px Inter, sans-serif } code { font-family: "JetBrains Mono", monospace; font-weight: 400 }</style>',
      '<h1>Title</h1><code>x = 1</code><p style="font-family: Brand Sans; font-style: italic">hi</p>',
    )
    const {fonts, html} = await compileComposition(file, {env})
    const byFamily = new Map(fonts.families.map((family) => [family.family, family]))
    expect(byFamily.get('Inter')).toMatchObject({source: 'bundled', packageName: '@fontsource/inter', weights: [700], styles: ['normal']})
    expect(byFamily.get('JetBrains Mono')).toMatchObject({source: 'bundled', weights: [400]})
    expect(byFamily.get('Noto Sans')).toMatchObject({source: 'bundled', generics: ['sans-serif']})
    expect(byFamily.get('Noto Sans Mono')).toMatchObject({source: 'bundled', generics: ['monospace']})
    expect(byFamily.get('Brand Sans')).toMatchObject({source: 'missing', styles: ['italic'], where: 'the style attribute of <p>'})
    expect(fonts.findings).toEqual([expect.objectContaining({code: 'font-fallback', family: 'Brand Sans', message: expect.stringContaining('engine fonts add "Brand Sans"')})])
    // Generic keywords are replaced in the page, and the default face is set below every author rule.
    expect(html).toContain('font: 700 40px Inter, "Noto Sans"')
    expect(html).toContain(':where(html){font-family:"Noto Serif"}')

    const inter = fonts.runtime.faces.filter((face) => face.family === 'Inter')
    // 9 weights x 2 styles x 7 served subsets
    expect(inter).toHaveLength(9 * 2 * 7)
    const bold = inter.find((face) => face.weight === 700 && face.style === 'normal' && face.file.endsWith('inter-latin-700-normal.woff2'))!
    expect(bold.url).toBe(`http://project.engine.localhost/__engine/fonts/${bold.name}`)
    expect(bold.name).toMatch(/^[0-9a-f]{64}\.woff2$/)
    expect(bold.unicodeRange).toMatch(/^U\+0000-00FF/)
    const cached = await readFile(join(env.ENGINE_CACHE_DIR!, 'fonts', bold.name))
    const original = await readFile(join(VENDORED_FONTS_DIR, 'inter', 'files', 'inter-latin-700-normal.woff2'))
    expect(cached.equals(original)).toBe(true)
    expect(fonts.runtime.eager).toContainEqual({family: 'Inter', weight: 700, style: 'normal'})
  })

  it('replaces Google Fonts links and @imports by local faces, so nothing waits on the network', async () => {
    const file = await composition(
      'google.html',
      '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>' +
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter:wght@700&family=JetBrains+Mono&display=swap">' +
        '<style>@import url("https://fonts.googleapis.com/css?family=Oswald:300"); @import url("https://fonts.googleapis.com/css2?family=Inter:wght@oops"); h1 { font-family: Inter }</style>',
      '<h1>Title</h1>',
    )
    const {fonts, html} = await compileComposition(file, {env})
    expect(html).not.toMatch(/fonts\.(googleapis|gstatic)\.com/)
    expect(fonts.removedUrls).toHaveLength(2)
    const families = Object.fromEntries(fonts.families.map((family) => [family.family, family]))
    expect(families.Inter).toMatchObject({source: 'bundled', weights: [400, 700]})
    expect(families['JetBrains Mono']).toMatchObject({source: 'bundled', weights: [400]})
    expect(families.Oswald).toMatchObject({source: 'bundled', weights: [300]})
    expect(fonts.findings).toEqual([expect.objectContaining({code: 'font-url-unreadable', message: expect.stringContaining('css2?family=Inter:wght@oops')})])
  })

  it('leaves families the project declares with @font-face alone, and finds those sub-compositions and scripts name', async () => {
    await mkdir(join(dir, 'parts'), {recursive: true})
    await writeFile(
      join(dir, 'parts', 'card.html'),
      '<template><div data-composition-id="card" data-width="320" data-height="180" data-duration="1"><style>p { font-family: Montserrat; font-weight: 800 }</style><p>Card</p></div></template>',
    )
    const file = await composition(
      'project.html',
      '<style>@font-face { font-family: "Inter"; src: url(own.woff2) } h1 { font-family: Inter }</style>',
      '<h1>Title</h1><div data-composition-src="parts/card.html" data-start="0"></div><script>document.querySelector("h1").style.fontFamily = "Bebas Neue"</script>',
    )
    const {fonts} = await compileComposition(file, {env})
    const families = Object.fromEntries(fonts.families.map((family) => [family.family, family]))
    expect(families.Inter).toMatchObject({source: 'project'})
    expect(fonts.runtime.faces.some((face) => face.family === 'Inter')).toBe(false)
    expect(families.Montserrat).toMatchObject({source: 'bundled', weights: [800]})
    expect(families['Bebas Neue']).toMatchObject({source: 'bundled', where: 'a script'})
  })

  it('maps every generic family to a bundled face', async () => {
    const catalog = await loadFontCatalog(env)
    for (const [generic, face] of Object.entries(GENERIC_FAMILY_FACES)) {
      expect(catalog.families.get(face.toLowerCase())?.source, generic).toBe('bundled')
    }
  })

  it('has every bundled face of every served subset on disk', async () => {
    const catalog = await loadFontCatalog(env)
    expect(catalog.families.size).toBe(bundledFontPackageDirectories().length)
    const missing: string[] = []
    for (const entry of catalog.families.values()) {
      for (const weight of entry.weights)
        for (const style of entry.styles)
          for (const subset of entry.subsets) {
            const path = fontFilePath(entry, subset.name, weight, style)
            await stat(path).catch(() => missing.push(path))
          }
    }
    expect(missing).toEqual([])
  })

  it('refuses a corrupt font file, naming it', async () => {
    const fake = join(dir, 'fake.woff2')
    await writeFile(fake, '<html>not a font</html>')
    await expect(cacheFontFile(fake, env)).rejects.toMatchObject({code: 'FONT_FAILED', message: expect.stringContaining(fake)})
  })

  it('keeps script line numbers right after changing the page', async () => {
    const file = await composition('lines.html', '<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Anton">', '<script>\nconsole.log(1)\n</script>')
    const compiled = await compileComposition(file, {env})
    const $ = load(compiled.html)
    expect($('style[data-engine-fonts]')).toHaveLength(1)
    const lineOfScript = compiled.html.slice(0, compiled.html.indexOf('console.log')).split('\n').length
    expect(compiled.scriptLines[0].compiledLine + 1).toBe(lineOfScript)
    expect(await readdir(join(env.ENGINE_CACHE_DIR!, 'fonts'))).not.toHaveLength(0)
  })
})

describe('font files on another machine (a Lambda chunk)', () => {
  it('puts the faces a plan names into an empty font cache from the local packages, with the same content addresses', async () => {
    const file = await composition('chunk.html', '<style>h1 { font-family: Inter }</style>', '<h1>x</h1>')
    const {fonts} = await compileComposition(file, {env})
    const chunkEnv = {ENGINE_CACHE_DIR: join(dir, 'chunk-cache')}
    await ensureFontFiles(fonts.runtime, chunkEnv)
    const names = new Set(await readdir(join(chunkEnv.ENGINE_CACHE_DIR, 'fonts')))
    for (const face of fonts.runtime.faces) expect(names.has(face.name), face.file).toBe(true)
  })

  it('refuses a plan whose file is not installed here or differs, naming the family and the file', async () => {
    const chunkEnv = {ENGINE_CACHE_DIR: join(dir, 'chunk-cache-2')}
    const face = {family: 'Lobster', weight: 400, style: 'normal' as const, unicodeRange: 'U+0-FF', url: 'x', name: `${'0'.repeat(64)}.woff2`, file: '@fontsource/lobster/files/lobster-latin-400-normal.woff2'}
    await expect(ensureFontFiles({faces: [face], eager: []}, chunkEnv)).rejects.toMatchObject({code: 'FONT_FAILED', message: expect.stringMatching(/"Lobster" needs @fontsource\/lobster\/files\/lobster-latin-400-normal\.woff2/)})
    const other = {...face, family: 'Inter', file: '@fontsource/inter/files/inter-latin-400-normal.woff2'}
    await expect(ensureFontFiles({faces: [other], eager: []}, chunkEnv)).rejects.toMatchObject({code: 'FONT_FAILED', message: expect.stringContaining('differs from the file the render was planned with')})
    const hostile = {...face, file: '@fontsource/inter/../../../etc/passwd'}
    await expect(ensureFontFiles({faces: [hostile], eager: []}, chunkEnv)).rejects.toMatchObject({code: 'FONT_FAILED'})
  })
})
