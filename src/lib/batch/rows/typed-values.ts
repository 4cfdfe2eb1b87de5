import type {VariableDeclaration} from '../../variables/variable-declaration.js'
import {typeCell, typeProblem} from './csv-cells.js'

/** The declarations by id; undefined when the caller does not know them (every key is then a value, untyped). */
export type DeclarationsById = ReadonlyMap<string, VariableDeclaration> | undefined

export interface TypedValues {
  values: Record<string, unknown>
  /** Keys no variable declares: row data, which never reaches the page. */
  data: Record<string, unknown>
  problems: Array<{field: string; reason: string}>
}

/**
 * A JSON row's values typed as a CSV row's cells are, so that a batch behaves the same whatever
 * file it comes in: a number or boolean variable takes a JSON number or boolean as it is and reads
 * a string as a CSV cell would ("42", "yes"; "" means the default), and anything it cannot read is
 * a problem of the row worded as the CSV one. Keys no variable declares are row data.
 */
export function typeRowValues(object: Record<string, unknown>, byId: DeclarationsById, field: (key: string) => string = (key) => `"${key}"`): TypedValues {
  if (!byId) return {values: {...object}, data: {}, problems: []}
  const values: Record<string, unknown> = {}
  const data: Record<string, unknown> = {}
  const problems: TypedValues['problems'] = []
  for (const [key, value] of Object.entries(object)) {
    const declaration = byId.get(key)
    if (!declaration) {
      data[key] = value
      continue
    }
    if (declaration.type !== 'number' && declaration.type !== 'boolean') {
      values[key] = value
      continue
    }
    if (typeof value === declaration.type && (typeof value !== 'number' || Number.isFinite(value))) {
      values[key] = value
      continue
    }
    const typed = typeof value === 'string' ? typeCell(declaration, value) : value === null ? {empty: true as const} : {problem: typeProblem(declaration, JSON.stringify(value) ?? String(value))}
    if ('problem' in typed) problems.push({field: field(key), reason: typed.problem})
    else if ('value' in typed) values[key] = typed.value
  }
  return {values, data, problems}
}
