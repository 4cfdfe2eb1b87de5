import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {load} from 'cheerio'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import {expandVariables, mapOutsideVariables, variableNames} from '../../src/lib/fonts/css-variables.js'

let dir: string
let env: NodeJS.ProcessEnv
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-css-discovery-'))
  env = {ENGINE_CACHE_DIR: join(dir, 'cache')}
})
afterAll(async () => {
  await rm(dir, {recursive: true, force: true})
})

async function write(name: string, content: string): Promise<string> {
  const file = join(dir, name)
  await mkdir(dirname(file), {recursive: true})
  await writeFile(file, content)
  return file
}

function page(head: string, body: string): string {
  return `<!doctype html><html data-composition-id="c" data-width="320" data-height="180" data-duration="1"><head>${head}</head><body>${body}</body></html>`
}

async function families(file: string) {
  const compiled = await compileComposition(file, {env})
  return {compiled, byFamily: new Map(compiled.fonts.families.map((family) => [family.family, family]))}
}

describe('var() in font values', () => {
  const properties = new Map([
    ['--brand', ['"Inter", sans-serif']],
    ['--heading', ['var(--brand)', 'Lato']],
    ['--loop', ['var(--loop), serif']],
  ])

  it('expands to every value its properties are given, fallbacks and nesting included', () => {
    expect(expandVariables('var(--brand)', properties)).toEqual(['"Inter", sans-serif'])
    expect(expandVariables('var(--heading)', properties)).toEqual(['"Inter", sans-serif', 'Lato'])
    expect(expandVariables('var(--nowhere, "Oswald", serif)', properties)).toEqual(['"Oswald", serif'])
    expect(expandVariables('700 40px/1.2 var(--brand)', properties)).toEqual(['700 40px/1.2 "Inter", sans-serif'])
    expect(expandVariables('var(--loop)', properties)).toEqual([])
    expect(variableNames('var(--a, var(--b, serif)) var(--c)')).toEqual(['--a', '--b', '--c'])
  })

  it('rewrites inside fallbacks and leaves the references', () => {
    expect(mapOutsideVariables('var(--f, var(--g, serif)), monospace', (text) => text.replace(/\bserif\b|\bmonospace\b/g, 'X'))).toBe('var(--f, var(--g, X)), X')
  })
})

describe('font discovery follows CSS', () => {
  it('finds families named through custom properties, with their weights, and maps generics inside them', async () => {
    const file = await write(
      'variables.html',
      page(
        '<style>:root { --brand-font: "Inter", sans-serif; --code: var(--mono, "JetBrains Mono", monospace); --title: 700 48px/1 "Oswald", serif } h1 { font-family: var(--brand-font); font-weight: 600 } code { font-family: var(--code) } h2 { font: var(--title) }</style>',
        '<h1>Title</h1><code>x</code><h2>Sub</h2><p style="font: italic 300 20px var(--brand-font)">p</p>',
      ),
    )
    const {compiled, byFamily} = await families(file)
    expect(byFamily.get('Inter')).toMatchObject({source: 'bundled', weights: [300, 600], styles: ['italic', 'normal'], first: true})
    expect(byFamily.get('JetBrains Mono')).toMatchObject({source: 'bundled', first: true})
    expect(byFamily.get('Oswald')).toMatchObject({source: 'bundled', weights: [700], first: true})
    expect(compiled.fonts.findings).toEqual([])
    const css = load(compiled.html)('style:not([data-engine-fonts])').text()
    expect(css).toContain('--brand-font: "Inter", "Noto Sans"')
    expect(css).toContain('--code: var(--mono, "JetBrains Mono", "Noto Sans Mono")')
    expect(css).toContain('--title: 700 48px/1 "Oswald", "Noto Serif"')
  })

  it('reads stylesheets the page links from the project, their imports and @font-face rules, and leaves remote and outside ones', async () => {
    await write('linked/css/fonts.css', '@import "theme.css"; @font-face { font-family: "Brand"; src: url("../fonts/brand.woff2") } @import "late.css";')
    await write('linked/css/theme.css', ':root { --ui: "Manrope", sans-serif } body { font-family: var(--ui); background: url(bg.png) }')
    const file = await write(
      'linked/index.html',
      page(
        '<link rel="stylesheet" href="css/fonts.css"><link rel="stylesheet" href="css/theme.css" media="screen"><link rel="stylesheet" href="https://cdn.example.test/x.css"><link rel="stylesheet" href="../elsewhere.css">',
        '<p style="font-family: Brand">b</p>',
      ),
    )
    await write('elsewhere.css', 'p { font-family: "Elsewhere" }')
    const {compiled, byFamily} = await families(file)
    expect(byFamily.get('Brand')).toMatchObject({source: 'project'})
    expect(byFamily.get('Manrope')).toMatchObject({source: 'bundled', first: true})
    expect(byFamily.has('Elsewhere')).toBe(false)
    const $ = load(compiled.html)
    const fontsCss = $('style[data-engine-stylesheet="css/fonts.css"]').text()
    expect(fontsCss).toContain('src: url("fonts/brand.woff2")')
    // An @import after other rules is ignored by browsers: it is not inlined either (only rebased).
    expect(fontsCss).toContain('@import url("css/late.css")')
    expect($('style[data-engine-stylesheet="css/theme.css"]').text()).toMatch(/^@media screen \{/)
    expect(fontsCss).toContain('background: url(css/bg.png)')
    expect($('link[rel=stylesheet]').toArray().map((link) => link.attribs.href)).toEqual(['https://cdn.example.test/x.css', '../elsewhere.css'])
    expect(Object.keys(compiled.sourceFiles).map((path) => path.slice(dir.length)).sort()).toEqual(['/linked/css/fonts.css', '/linked/css/theme.css', '/linked/index.html'])
  })

  it('reads the stylesheets of sub-compositions, inline and linked', async () => {
    await write('subs/card/card.css', '.card { font-family: "Space Grotesk", sans-serif }')
    await write('subs/card/card.html', '<template><link rel="stylesheet" href="card.css"><style>:root { --t: "Archivo Black" } h2 { font-family: var(--t) }</style><div data-composition-id="card"><h2 class="card">c</h2></div></template>')
    const file = await write('subs/index.html', page('', '<div data-composition-src="card/card.html" data-duration="1"></div>'))
    const {byFamily} = await families(file)
    expect(byFamily.get('Space Grotesk')).toMatchObject({source: 'bundled', first: true})
    expect(byFamily.get('Archivo Black')).toMatchObject({source: 'bundled', first: true})
  })

  it('never reads a stylesheet outside the project, through a symlink, an encoded path or a giant file', async () => {
    await write('secret/outside.css', 'p { font-family: "Outside Secret" }')
    await write('hostile/package.json', '{}')
    await symlink(join(dir, 'secret/outside.css'), join(dir, 'hostile/linked.css'))
    await write('hostile/huge.css', `p { font-family: "Huge" } /* ${'x'.repeat(3 * 1024 ** 2)} */`)
    const links = ['linked.css', '%2e%2e/secret/outside.css', '/../secret/outside.css', 'huge.css'].map((href) => `<link rel="stylesheet" href="${href}">`).join('')
    const file = await write('hostile/index.html', page(links, '<p>x</p>'))
    const {compiled, byFamily} = await families(file)
    expect([...byFamily.keys()].filter((family) => /Outside|Huge/.test(family))).toEqual([])
    expect(load(compiled.html)('link[rel=stylesheet]')).toHaveLength(4)
    expect(compiled.html).not.toContain('Outside Secret')
  })
})
