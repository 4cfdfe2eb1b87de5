import {join} from 'node:path'
import puppeteer, {type Browser, type Page} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {compileComposition, type CompiledComposition} from '../../src/lib/compose/index.js'

// A real browser checks what string assertions cannot: that @scope confines sub-composition styles
// to their host and that each scoped script reads its own instance's variables.
const root = join(import.meta.dirname, '../fixtures/compositions/compile/index.html')
const executablePath = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

// Stands in for the page runtime: only the two entry points the compiled page calls.
function runtimeStub(compiled: CompiledComposition): string {
  const config = JSON.stringify({variables: compiled.variables, instances: compiled.instances})
  return `<script>
    window.__ENGINE_CONFIG__ = ${config};
    window.__engine = {
      getVariables: () => window.__ENGINE_CONFIG__.variables,
      __runScoped: (key, fn) => fn({getVariables: () => window.__ENGINE_CONFIG__.instances[key].variables}),
    };
  </script>`
}

describe('a compiled page in Chromium', () => {
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    const compiled = await compileComposition(root)
    browser = await puppeteer.launch({executablePath, args: ['--no-sandbox']})
    page = await browser.newPage()
    await page.setContent(compiled.html.replace('<head>', `<head>${runtimeStub(compiled)}`))
  })

  afterAll(async () => {
    await browser?.close()
  })

  const style = (selector: string, property: string) =>
    page.$eval(selector, (element, name) => getComputedStyle(element).getPropertyValue(name), property)

  it('applies a sub-composition style inside its host only', async () => {
    expect(await style('#first .title', 'color')).toBe('rgb(255, 0, 0)')
    expect(await style('#root-title', 'color')).toBe('rgb(0, 0, 255)')
  })

  it('turns html/body/:root rules of a sub-composition into rules on its host', async () => {
    expect(await style('#first', 'border-top-width')).toBe('3px')
    expect(await style('body', 'border-top-width')).toBe('0px')
    expect(await style('#third', 'outline-color')).toBe('rgb(0, 128, 0)')
    expect(await style('body', 'outline-style')).toBe('none')
  })

  it('keeps @keyframes of a sub-composition usable', async () => {
    const names = await page.$eval('#first .spin', (element) => element.getAnimations().map((a) => (a as CSSAnimation).animationName))
    expect(names).toEqual(['card-spin'])
  })

  it('gives each scoped script its own instance variables', async () => {
    expect(await page.$eval('#first .label', (e) => e.textContent)).toBe('first')
    expect(await page.$eval('#second .label', (e) => e.textContent)).toBe('card default')
    expect(await page.$eval('#badge-host .badge-text', (e) => e.textContent)).toBe('nested')
    expect(await page.evaluate(() => (window as unknown as {panelHeadRan: string}).panelHeadRan)).toBe('huge')
  })
})
