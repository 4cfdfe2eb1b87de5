import {mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {
  assertNoStrictErrors,
  loadVariableOverrides,
  parseDeclarations,
  parseVariablesText,
  readVariablesFile,
  resolveVariables,
  validateVariableValues,
} from '../../src/lib/variables/index.js'

const {declarations} = parseDeclarations(
  JSON.stringify([
    {id: 'title', type: 'string', label: 'Title', default: 'Hello'},
    {id: 'count', type: 'number', label: 'Count', default: 1},
    {id: 'accent', type: 'color', label: 'Accent', default: '#ff0000'},
    {id: 'loop', type: 'boolean', label: 'Loop', default: false},
    {id: 'size', type: 'enum', label: 'Size', default: 's', options: [{value: 's', label: 'S'}, {value: 'l', label: 'L'}]},
    {id: 'shape', type: 'object', label: 'Shape', default: {}},
  ]),
)

const validate = (values: Record<string, unknown>, strict = false) =>
  validateVariableValues(declarations, values, {source: '--variables', compositionId: 'main', strict})

describe('resolveVariables', () => {
  it('layers defaults < host values < command line, key by key', () => {
    const resolved = resolveVariables(declarations, {title: 'host', count: 2}, {count: 3, loop: true})
    expect(resolved).toEqual({title: 'host', count: 3, accent: '#ff0000', loop: true, size: 's'})
  })

  it('lets a key missing from a layer fall through, and keeps undeclared keys for the script', () => {
    expect(resolveVariables(declarations, undefined, {extra: 1})).toMatchObject({title: 'Hello', extra: 1})
  })
})

describe('validateVariableValues', () => {
  it('accepts a value of every declared type', () => {
    expect(validate({title: 'x', count: 2.5, accent: '#00AAff', loop: true, size: 'l'})).toEqual([])
  })

  it('reports undeclared keys, including keys of a dropped unknown-type declaration', () => {
    const findings = validate({titel: 'x', shape: {}})
    expect(findings.map((f) => [f.code, f.variable])).toEqual([
      ['undeclared', 'titel'],
      ['undeclared', 'shape'],
    ])
    expect(findings[0]).toMatchObject({severity: 'warning', value: 'x', source: '--variables'})
    expect(findings[0].message).toBe(
      '--variables: "titel" is not a declared variable of composition "main" (declared: title, count, accent, loop, size)',
    )
  })

  it.each([
    ['title', 5],
    ['count', '3'],
    ['count', null],
    ['accent', 'red'],
    ['accent', '#fff'],
    ['loop', 'true'],
    ['size', 2],
  ])('reports %s = %j as a type mismatch', (variable, value) => {
    expect(validate({[variable]: value})).toMatchObject([{code: 'type-mismatch', variable, value}])
  })

  it('reports an enum value outside its options with the options expected', () => {
    expect(validate({size: 'xl'})).toMatchObject([{code: 'enum-out-of-range', expected: 'one of "s", "l"'}])
  })

  it('makes every finding an error under strict, and assertNoStrictErrors lists them all', () => {
    const findings = validate({titel: 1, count: 'x'}, true)
    expect(findings.map((f) => f.severity)).toEqual(['error', 'error'])
    let thrown: unknown
    try {
      assertNoStrictErrors(findings)
    } catch (error) {
      thrown = error
    }
    expect(isEngineError(thrown, 'STRICT_VARIABLES')).toBe(true)
    expect((thrown as Error).message).toMatch(/2 variable problems[\s\S]*\[undeclared\][\s\S]*\[type-mismatch\]/)
    expect(() => assertNoStrictErrors(validate({titel: 1}))).not.toThrow()
  })
})

describe('command-line overrides', () => {
  it('parses --variables JSON text, and names the flag when it is not a JSON object', () => {
    expect(parseVariablesText('{"title": "x"}')).toEqual({title: 'x'})
    expect(() => parseVariablesText('{title: x}')).toThrow(/^--variables: not valid JSON/)
    expect(() => parseVariablesText('[1]')).toThrow(/^--variables: must be a JSON object of variable values, got an array/)
  })

  it('reads --variables-file, naming the file in errors, and lets --variables override it key by key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-vars-'))
    const file = join(dir, 'vars.json')
    await writeFile(file, '{"title": "file", "count": 2}')
    expect(await readVariablesFile(file)).toEqual({title: 'file', count: 2})
    expect(await loadVariableOverrides({variablesFile: file, variables: '{"count": 3}'})).toEqual({title: 'file', count: 3})
    expect(await loadVariableOverrides({})).toBeUndefined()

    const broken = join(dir, 'broken.json')
    await writeFile(broken, '{"title": ')
    const error = await readVariablesFile(broken).catch((e: unknown) => e)
    expect(isEngineError(error, 'INVALID_VARIABLES')).toBe(true)
    expect((error as Error).message).toContain(`--variables-file "${broken}": not valid JSON`)
    await expect(readVariablesFile(join(dir, 'nope.json'))).rejects.toThrow(/--variables-file: cannot read .*nope\.json.*ENOENT/)
  })
})
