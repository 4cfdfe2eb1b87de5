import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {findBackgroundOnRoot, LINT_CODES, lintComposition, type LintCode} from '../../src/lib/lint/index.js'

const fixtures = join(import.meta.dirname, '../fixtures/compositions/lint')
const fixture = (name: string) => join(fixtures, name)

/** 1-based line of the first occurrence of `marker` in a fixture: where the finding must point. */
function lineOf(name: string, marker: string): number {
  const lines = readFileSync(fixture(name), 'utf8').split('\n')
  const index = lines.findIndex((line) => line.includes(marker))
  if (index < 0) throw new Error(`marker ${marker} not in ${name}`)
  return index + 1
}

const cases: Array<[fixture: string, code: LintCode, marker: string]> = [
  ['variables-malformed.html', 'variables-malformed', 'data-composition-variables'],
  ['variable-missing-field.html', 'variable-missing-field', '"id": "nolabel"'],
  ['variable-default-mismatch.html', 'variable-default-mismatch', '"id": "count"'],
  ['variable-unknown-type.html', 'variable-unknown-type', '"id": "shape"'],
  ['variable-duplicate-id.html', 'variable-duplicate-id', '"label": "Title again"'],
  ['variable-invalid-field.html', 'variable-invalid-field', '"id": "speed"'],
  ['enum-missing-options.html', 'enum-missing-options', '"id": "size"'],
  ['enum-default-not-option.html', 'enum-default-not-option', '"id": "size"'],
  ['composition-id-missing.html', 'composition-id-missing', '<html'],
  ['composition-attribute-missing.html', 'composition-attribute-missing', '<main'],
  ['composition-attribute-invalid.html', 'composition-attribute-invalid', 'data-width="wide"'],
  ['clip-timing-invalid.html', 'clip-timing-invalid', 'data-duration="-1"'],
  ['start-unknown-reference.html', 'start-unknown-reference', 'data-start="nowhere"'],
  ['start-cycle.html', 'start-cycle', 'id="a"'],
  ['clip-never-visible.html', 'clip-never-visible', 'id="sub"'],
  ['sub-composition-not-found.html', 'sub-composition-not-found', 'parts/missing.html'],
  ['sub-composition-cycle.html', 'sub-composition-cycle', 'data-composition-src="sub-composition-cycle.html"'],
  ['variable-values-malformed.html', 'variable-values-malformed', 'data-variable-values'],
  ['variable-values-undeclared.html', 'variable-values-undeclared', 'data-variable-values'],
  ['variable-values-type-mismatch.html', 'variable-values-type-mismatch', 'data-variable-values'],
  ['variable-values-enum-out-of-range.html', 'variable-values-enum-out-of-range', 'data-variable-values'],
  ['color-grading-malformed.html', 'color-grading-malformed', 'data-color-grading'],
  ['color-grading-unknown-variable.html', 'color-grading-unknown-variable', '${lok}'],
  ['color-grading-partial-substitution.html', 'color-grading-partial-substitution', 'film-$look'],
  ['background-with-alpha.html', 'background-with-alpha', 'background-color: #101010'],
  ['text-fit-invalid.html', 'text-fit-invalid', 'data-fit="shrnk"'],
]

describe('lintComposition', () => {
  it.each(cases)('%s: reports %s at the line of the problem, and nothing else in that file', async (name, code, marker) => {
    const path = fixture(name)
    const findings = await lintComposition(path, {alpha: true})
    const matching = findings.filter((finding) => finding.code === code)
    expect(matching.length).toBeGreaterThan(0)
    const severity = LINT_CODES.find((entry) => entry.code === code)!.severity
    for (const finding of matching) {
      expect(finding).toMatchObject({file: path, line: lineOf(name, marker), severity})
      expect(finding.message.length).toBeGreaterThan(20)
    }
    expect(findings.filter((finding) => finding.file === path && finding.code !== code)).toEqual([])
  })

  it('finds nothing in a clean composition with a sub-composition, clip references and grading variables', async () => {
    expect(await lintComposition(fixture('clean.html'), {alpha: true})).toEqual([])
  })

  it('finds nothing in the hello example, for opaque and alpha formats', async () => {
    const example = join(import.meta.dirname, '../../examples/hello/index.html')
    expect(await lintComposition(example)).toEqual([])
    expect(await lintComposition(example, {alpha: true})).toEqual([])
  })

  it('recurses into sub-compositions, naming their file', async () => {
    const findings = await lintComposition(fixture('sub-composition-findings.html'))
    expect(findings).toMatchObject([{code: 'variable-default-mismatch', file: join(fixtures, 'parts/broken-sub.html'), line: 2}])
  })

  it('names files as the user wrote the path', async () => {
    const findings = await lintComposition('test/fixtures/compositions/lint/sub-composition-findings.html')
    expect(findings[0].file).toBe('test/fixtures/compositions/lint/parts/broken-sub.html')
  })

  it('reports every undeclared key, including keys of a declaration dropped for its unknown type', async () => {
    const findings = await lintComposition(fixture('variable-values-undeclared.html'))
    const undeclared = findings.filter((finding) => finding.code === 'variable-values-undeclared')
    expect(undeclared.map((finding) => finding.message)).toEqual([
      expect.stringContaining('"nmae" is not a declared variable of composition "sub"'),
      expect.stringContaining('"blob" is not a declared variable'),
    ])
    expect(findings).toContainEqual(expect.objectContaining({code: 'variable-unknown-type', file: join(fixtures, 'parts/sub.html')}))
  })

  it('checks backgrounds only for alpha formats', async () => {
    expect(await lintComposition(fixture('background-with-alpha.html'))).toEqual([])
  })

  it('throws COMPOSITION_NOT_FOUND for a missing file', async () => {
    const error = await lintComposition(fixture('nope.html')).catch((e: unknown) => e)
    expect(isEngineError(error, 'COMPOSITION_NOT_FOUND')).toBe(true)
  })
})

describe('findBackgroundOnRoot', () => {
  it('finds backgrounds on html, body and :root in rules, style attributes and bgcolor', () => {
    const html = `<html style="background: white"><head><style>
:root { background-image: url(a.png) }
html body { background: rgba(0, 0, 0, 0) }
@media screen { body.dark { background: #000 } }
body .inner, main { background: red }
</style></head><body bgcolor="black"></body></html>`
    expect(findBackgroundOnRoot(html).map((finding) => finding.line)).toEqual([2, 4, 1, 6])
  })

  it('ignores transparent backgrounds', () => {
    const html = '<style>html, body { background: transparent; background-color: #0000 } body { background: none }</style>'
    expect(findBackgroundOnRoot(html)).toEqual([])
  })
})
