import {describe, expect, it} from 'vitest'
import {parseDeclarations} from '../../src/lib/variables/index.js'

const parse = (declarations: unknown) => parseDeclarations(JSON.stringify(declarations))
const codes = (declarations: unknown) => parse(declarations).problems.map((problem) => problem.code)

describe('parseDeclarations', () => {
  it('accepts each of the five types with their type-specific fields', () => {
    const declarations = [
      {id: 's', type: 'string', label: 'S', default: 'hi', placeholder: 'type here', maxLength: 20},
      {id: 'n', type: 'number', label: 'N', default: 3, min: 0, max: 10, step: 0.5, unit: 'px'},
      {id: 'c', type: 'color', label: 'C', default: '#A0b1C2'},
      {id: 'b', type: 'boolean', label: 'B', default: false},
      {id: 'e', type: 'enum', label: 'E', default: 'a', options: [{value: 'a', label: 'A'}, {value: 'b', label: 'B'}]},
    ]
    expect(parse(declarations)).toEqual({declarations, problems: []})
  })

  it('drops a declaration with an unknown type, with only a warning', () => {
    const result = parse([{id: 'o', type: 'object', label: 'O', default: {}}, {id: 's', type: 'string', label: 'S', default: ''}])
    expect(result.declarations.map((d) => d.id)).toEqual(['s'])
    expect(result.problems).toMatchObject([{code: 'variable-unknown-type', severity: 'warning', index: 0}])
  })

  it('reports malformed JSON as an error, and JSON that is not an array as a warning that declares nothing', () => {
    expect(parseDeclarations('[{"id": ').problems).toMatchObject([{code: 'variables-malformed', severity: 'error', message: /not valid JSON/}])
    expect(parseDeclarations('{"id": "a"}')).toMatchObject({declarations: [], problems: [{code: 'declarations-invalid', severity: 'warning', message: /must be a JSON array of declarations .*got an object/}]})
    expect(parseDeclarations('"text"').problems).toMatchObject([{code: 'declarations-invalid', message: /got a string/}])
    expect(codes(['text'])).toEqual(['variables-malformed'])
  })

  it('reports each missing required field', () => {
    expect(parse([{type: 'string'}]).problems.map((p) => p.message)).toEqual([
      'declaration #1: required field "id" is missing',
      'declaration #1: required field "label" is missing',
      'declaration #1: required field "default" is missing',
    ])
  })

  it.each([
    ['string', 5],
    ['number', '5'],
    ['color', 'red'],
    ['color', '#fff'],
    ['boolean', 'true'],
    ['enum', 1],
  ])('reports a %s declaration with default %j as a mismatch', (type, value) => {
    const options = type === 'enum' ? {options: [{value: 'a', label: 'A'}]} : {}
    expect(codes([{id: 'v', type, label: 'V', default: value, ...options}])).toEqual(['variable-default-mismatch'])
  })

  it('checks enum options and that the default is one of them', () => {
    expect(codes([{id: 'e', type: 'enum', label: 'E', default: 'a'}])).toEqual(['enum-missing-options'])
    expect(codes([{id: 'e', type: 'enum', label: 'E', default: 'a', options: []}])).toEqual(['enum-missing-options'])
    expect(codes([{id: 'e', type: 'enum', label: 'E', default: 'z', options: [{value: 'a', label: 'A'}]}])).toEqual(['enum-default-not-option'])
    expect(codes([{id: 'e', type: 'enum', label: 'E', default: 'a', options: [{value: 'a'}]}])).toEqual(['variable-invalid-field'])
  })

  it('reports wrongly typed extra fields and duplicate ids, keeping the first declaration', () => {
    expect(codes([{id: 's', type: 'string', label: 3, default: 'x', maxLength: -1}])).toEqual(['variable-invalid-field', 'variable-invalid-field'])
    const duplicate = parse([
      {id: 'a', type: 'string', label: 'First', default: 'x'},
      {id: 'a', type: 'number', label: 'Second', default: 1},
    ])
    expect(duplicate.declarations).toMatchObject([{label: 'First'}])
    expect(duplicate.problems).toMatchObject([{code: 'variable-duplicate-id', index: 1}])
  })
})
