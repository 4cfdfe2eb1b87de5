import type {VariableDeclaration} from '../../variables/variable-declaration.js'

export type TypedCell = {value: unknown} | {problem: string} | {empty: true}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/
const BOOLEANS: Record<string, boolean> = {true: true, false: false, '1': true, '0': false, yes: true, no: false}

/**
 * A spreadsheet has no types, so a cell takes the type of the variable its column declares: a
 * `number` is parsed, a `boolean` is read from true/false/1/0/yes/no, anything else (and a column
 * no variable declares) stays text. An empty cell means "use the default".
 */
export function typeCell(declaration: VariableDeclaration | undefined, cell: string): TypedCell {
  if (cell === '') return {empty: true}
  switch (declaration?.type) {
    case 'number': {
      const text = cell.trim()
      const value = Number(text)
      return NUMBER.test(text) && Number.isFinite(value) ? {value} : {problem: typeProblem(declaration, `"${cell.slice(0, 40)}"`)}
    }
    case 'boolean': {
      const value = BOOLEANS[cell.trim().toLowerCase()]
      return value === undefined ? {problem: typeProblem(declaration, `"${cell.slice(0, 40)}"`)} : {value}
    }
    default:
      return {value: cell}
  }
}

/** Why `shown` (the value as written, quoted when it is text) cannot be the number or boolean the declaration asks for. */
export function typeProblem(declaration: VariableDeclaration, shown: string): string {
  return declaration.type === 'number' ? `${shown.slice(0, 42)} is not a number (variable "${declaration.id}" is a number)` : `${shown.slice(0, 42)} is not a boolean; write true/false, 1/0 or yes/no`
}
