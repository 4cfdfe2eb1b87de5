import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {applyVariables} from '../../src/lib/compose/apply-variables.js'
import {compileComposition} from '../../src/lib/compose/index.js'

const fixtures = join(import.meta.dirname, '../fixtures/compositions')

describe('applyVariables: a batch compiles its template once', () => {
  it('gives exactly what compiling the file again with those values gives, sub-compositions and findings included', async () => {
    for (const file of [join(fixtures, 'compile/index.html'), join(fixtures, 'lint/variable-values-type-mismatch.html')]) {
      for (const strict of [false, true]) {
        // Compiled as the batch compiles it: with the render's strictness, without values.
        const template = await compileComposition(file, {strictVariables: strict})
        for (const variables of [undefined, {headline: 'Row 7'}, {headline: 42, undeclared: true}]) {
          const again = await compileComposition(file, {variables, strictVariables: strict})
          expect(await applyVariables(template, variables, strict), `${file} ${JSON.stringify(variables)} strict=${strict}`).toEqual(again)
        }
      }
    }
  })

  it('leaves the template as it was, so that rows do not see each other\'s values', async () => {
    const template = await compileComposition(join(fixtures, 'compile/index.html'))
    const before = structuredClone(template)
    const row = await applyVariables(template, {headline: 'Ada', extra: 1})
    expect(row.variables).toMatchObject({headline: 'Ada'})
    expect(row.findings.map((finding) => finding.code)).toContain('undeclared')
    expect(template).toEqual(before)
  })

  it('reads captions that come from a variable again with the row\'s value, as compiling again would', async () => {
    const file = join(import.meta.dirname, '../fixtures/captions/captions.html')
    const template = await compileComposition(file)
    for (const variables of [{subs: '1\n00:00:01,000 --> 00:00:01,500\nSecond row\n'}, {subs: ''}, {subs: 'row.srt'}]) {
      const row = await applyVariables(template, variables)
      expect(row, JSON.stringify(variables)).toEqual(await compileComposition(file, {variables}))
    }
    const inline = await applyVariables(template, {subs: '1\n00:00:01,000 --> 00:00:01,500\nSecond row\n'})
    expect(inline.captions?.[1]).toEqual({source: 'variable "subs"', variable: 'subs', cues: [{startMs: 1000, endMs: 1500, text: 'Second row'}]})
    expect((await applyVariables(template, {subs: ''})).captions?.[1]?.cues).toEqual([])
  })
})
