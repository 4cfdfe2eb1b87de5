import {mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {load} from 'cheerio'
import {describe, expect, it} from 'vitest'
import {compileComposition} from '../../src/lib/compose/index.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'

const fixtures = join(import.meta.dirname, '../fixtures/compositions')
const root = join(fixtures, 'compile/index.html')

describe('compileComposition', () => {
  it('returns the root attributes, declarations and resolved variables', async () => {
    const compiled = await compileComposition(root, {variables: {headline: 'From CLI'}})
    expect(compiled).toMatchObject({compositionId: 'main', width: 320, height: 180, durationSeconds: 2, file: root})
    expect(compiled.declarations.map((d) => d.id)).toEqual(['headline'])
    expect(compiled.variables).toEqual({headline: 'From CLI'})
  })

  it('inlines every sub-composition, nested ones included, keyed in document order', async () => {
    const {html, instances} = await compileComposition(root)
    const $ = load(html)
    expect($('#first').attr('data-engine-instance')).toBe('i1')
    expect($('#second').attr('data-engine-instance')).toBe('i2')
    expect($('#third').attr('data-engine-instance')).toBe('i3')
    expect($('#badge-host').attr('data-engine-instance')).toBe('i4')
    expect(Object.keys(instances)).toEqual(['i1', 'i2', 'i3', 'i4'])
    // The host's own placeholder content is replaced by the sub-composition root, attributes kept.
    expect($('#first > span').length).toBe(0)
    expect($('#first > [data-composition-id="card"]').attr('data-width')).toBe('160')
    // <html> as composition element becomes a div carrying its attributes and the body content.
    expect($('#third > div[data-composition-id="panel"] > section.panel').length).toBe(1)
    expect($('#badge-host [data-composition-id="badge"] .badge-text').length).toBe(1)
    expect($('template').length).toBe(0)
  })

  it('resolves instance variables: sub-composition defaults < host data-variable-values, key by key', async () => {
    const {instances, findings} = await compileComposition(root, {variables: {label: 'cli values do not reach sub-compositions'}})
    expect(instances.i1).toEqual({compositionId: 'card', variables: {label: 'first', bogus: true}})
    expect(instances.i2).toEqual({compositionId: 'card', variables: {label: 'card default'}})
    expect(instances.i3).toEqual({compositionId: 'panel', variables: {size: 'huge'}})
    expect(instances.i4).toEqual({compositionId: 'badge', variables: {text: 'nested'}})
    expect(findings.map((f) => [f.code, f.variable, f.severity])).toEqual([
      ['undeclared', 'label', 'warning'],
      ['undeclared', 'bogus', 'warning'],
      ['enum-out-of-range', 'size', 'warning'],
    ])
    expect(findings[1].message).toMatch(/data-variable-values on <div id="first"> in .*index\.html:9: "bogus" is not a declared variable of composition "card"/)
  })

  it('marks findings as errors under strict variables', async () => {
    const {findings} = await compileComposition(root, {strictVariables: true})
    expect(findings.every((f) => f.severity === 'error')).toBe(true)
  })

  it('scopes sub-composition styles with @scope, rewrites root selectors and hoists @keyframes', async () => {
    const $ = load((await compileComposition(root)).html)
    const css = $('#first style').text()
    expect(css).toMatch(/^@keyframes card-spin/)
    expect(css).toContain('@scope ([data-engine-instance="i1"])')
    expect(css).toContain(':scope { border-top')
    expect(css).toContain(':scope .title, .title { color')
    expect($('#second style').text()).toContain('@scope ([data-engine-instance="i2"])')
    // A <style> in the sub-composition's <head> moves into the host, scoped.
    expect($('#third > style').text()).toMatch(/@scope \(\[data-engine-instance="i3"\]\) \{\s*:scope \{ outline/)
    // The root's own styles are untouched.
    expect($('head style:not([data-engine-fonts])').text()).toBe('.title { color: rgb(0, 0, 255); }')
  })

  it('wraps inline classic scripts so that __engine is the instance reader; leaves module and external scripts', async () => {
    const $ = load((await compileComposition(root)).html)
    const scripts = $('#first script').toArray().map((element) => $(element))
    expect(scripts[0].text()).toMatch(/^window\.__engine\.__runScoped\("i1", function \(__engine\) \{\n[\s\S]*\/\/ trailing comment\s*\n\}\);$/)
    expect(scripts[1].attr('type')).toBe('module')
    expect(scripts[1].text()).toBe('export {}')
    expect(scripts[2].attr('src')).toBe('parts/lib/helper.js')
    // Head scripts of a sub-composition run inside the host, after its content.
    expect($('#third > script').text()).toContain('__runScoped("i3"')
    expect($('#third').children().last().is('script')).toBe(true)
  })

  it('rebases relative URLs onto the root file directory', async () => {
    const $ = load((await compileComposition(root)).html)
    expect($('#first img.logo').attr('src')).toBe('parts/img/logo.png')
    expect($('#first style').text()).toContain('url(parts/img/bg.png)')
    expect($('#first a').first().attr('href')).toBe('https://example.com/x')
    expect($('#first a').last().attr('href')).toBe('#frag')
    expect($('#third link').attr('href')).toBe('parts/panel.css')
    expect($('#badge-host').attr('data-composition-src')).toBe('nested/badge.html')
    expect($('#badge-host img').attr('src')).toBe('nested/icon.svg')
  })

  it('names the chain of files when a composition includes itself', async () => {
    const error = await compileComposition(join(fixtures, 'cycle/a.html')).catch((e: unknown) => e)
    expect(isEngineError(error, 'COMPOSITION_INVALID')).toBe(true)
    expect((error as Error).message).toMatch(/sub-composition cycle: a\.html -> b\.html -> a\.html/)
  })

  it('refuses a root without width or height, naming the attribute and the file; leaves a missing duration to the render', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-compile-'))
    const file = join(dir, 'no-width.html')
    await writeFile(file, '<html><body><div data-composition-id="x" data-height="180" data-duration="1"></div></body></html>')
    const error = await compileComposition(file).catch((e: unknown) => e)
    expect(isEngineError(error, 'COMPOSITION_INVALID')).toBe(true)
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toContain('has no data-width')
    const untimed = join(dir, 'no-duration.html')
    await writeFile(untimed, '<html><body><div data-composition-id="x" data-width="320" data-height="180"></div></body></html>')
    expect((await compileComposition(untimed)).durationSeconds).toBeUndefined()
  })

  it('refuses invalid declarations and a missing sub-composition file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-compile-'))
    const bad = join(dir, 'bad.html')
    await writeFile(
      bad,
      `<html data-composition-id="x" data-width="320" data-height="180" data-duration="1" data-composition-variables='[{"id": "n", "type": "number", "label": "N", "default": "3"}]'></html>`,
    )
    await expect(compileComposition(bad)).rejects.toThrow(/variable "n": default "3" does not match type "number"/)
    const missing = join(dir, 'missing.html')
    await writeFile(missing, '<html data-composition-id="x" data-width="320" data-height="180" data-duration="1"><body><div id="h" data-composition-src="nope.html"></div></body></html>')
    const error = await compileComposition(missing).catch((e: unknown) => e)
    expect(isEngineError(error, 'COMPOSITION_NOT_FOUND')).toBe(true)
    expect((error as Error).message).toMatch(/data-composition-src="nope.html" on <div id="h">.*nope\.html does not exist/)
  })

  it('reports a missing root file as COMPOSITION_NOT_FOUND', async () => {
    const error = await compileComposition(join(fixtures, 'does-not-exist.html')).catch((e: unknown) => e)
    expect(isEngineError(error, 'COMPOSITION_NOT_FOUND')).toBe(true)
  })
})
