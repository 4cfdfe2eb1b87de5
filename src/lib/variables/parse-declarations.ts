import {
  isVariableType,
  VARIABLE_TYPES,
  variableDeclarationSchema,
  type VariableDeclaration,
} from './variable-declaration.js'

export const DECLARATION_PROBLEM_CODES = [
  'variables-malformed',
  'declarations-invalid',
  'variable-missing-field',
  'variable-invalid-field',
  'variable-default-mismatch',
  'variable-unknown-type',
  'variable-duplicate-id',
  'enum-missing-options',
  'enum-default-not-option',
] as const
export type DeclarationProblemCode = (typeof DECLARATION_PROBLEM_CODES)[number]

export interface DeclarationProblem {
  code: DeclarationProblemCode
  severity: 'error' | 'warning'
  message: string
  /** Position of the declaration in the array, when the problem belongs to one. */
  index?: number
}

export interface ParsedDeclarations {
  /** Valid declarations only, first occurrence of each id. */
  declarations: VariableDeclaration[]
  problems: DeclarationProblem[]
}

const REQUIRED_FIELDS = ['id', 'type', 'label', 'default'] as const

/**
 * Reads the value of `data-composition-variables`. Never throws: invalid declarations are left out
 * and described in `problems` (the linter reports them, compile refuses errors). A declaration whose
 * type is not one of the known ones is dropped, as the spec's parser does, with a warning; so is a value
 * that is JSON but not an array (`declarations-invalid`: nothing is declared).
 */
export function parseDeclarations(raw: string | undefined): ParsedDeclarations {
  if (raw === undefined) return {declarations: [], problems: []}
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (error) {
    return {
      declarations: [],
      problems: [error_('variables-malformed', `data-composition-variables is not valid JSON (${(error as Error).message})`)],
    }
  }
  // The page's scripts read their values with defaults of their own: without declarations it still renders as written.
  if (!Array.isArray(json)) {
    return {
      declarations: [],
      problems: [
        {
          code: 'declarations-invalid',
          severity: 'warning',
          message: `data-composition-variables must be a JSON array of declarations ([{"id": ..., "type": ..., "label": ..., "default": ...}]), got ${kindOf(json)}; the composition has no declared variables`,
        },
      ],
    }
  }
  const declarations: VariableDeclaration[] = []
  const problems: DeclarationProblem[] = []
  json.forEach((entry: unknown, index) => {
    const declaration = parseOne(entry, index, problems)
    if (!declaration) return
    if (declarations.some((existing) => existing.id === declaration.id)) {
      problems.push(error_('variable-duplicate-id', `${name(entry, index)}: id "${declaration.id}" is declared more than once; ids must be unique`, index))
      return
    }
    declarations.push(declaration)
  })
  return {declarations, problems}
}

function parseOne(entry: unknown, index: number, problems: DeclarationProblem[]): VariableDeclaration | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problems.push(error_('variables-malformed', `declaration #${index + 1} must be a JSON object, got ${kindOf(entry)}`, index))
    return undefined
  }
  const record = entry as Record<string, unknown>
  if (record.type !== undefined && !isVariableType(record.type)) {
    problems.push({
      code: 'variable-unknown-type',
      severity: 'warning',
      message: `${name(entry, index)}: type ${JSON.stringify(record.type)} is not one of ${VARIABLE_TYPES.join(', ')}; the declaration is ignored`,
      index,
    })
    return undefined
  }
  const missing = REQUIRED_FIELDS.filter((field) => record[field] === undefined)
  for (const field of missing) {
    problems.push(error_('variable-missing-field', `${name(entry, index)}: required field "${field}" is missing`, index))
  }
  if (missing.length > 0) return undefined

  const result = variableDeclarationSchema.safeParse(record)
  if (!result.success) {
    const seen = new Set<string>()
    for (const issue of result.error.issues) {
      const field = issue.path.join('.')
      if (seen.has(field)) continue
      seen.add(field)
      problems.push(issueProblem(entry, index, issue.path, issue.message))
    }
    return undefined
  }
  const declaration = result.data
  if (declaration.type === 'enum' && !declaration.options.some((option) => option.value === declaration.default)) {
    const values = declaration.options.map((option) => JSON.stringify(option.value)).join(', ')
    problems.push(
      error_('enum-default-not-option', `${name(entry, index)}: default ${JSON.stringify(declaration.default)} is not one of the options ${values}`, index),
    )
    return undefined
  }
  return declaration
}

function issueProblem(entry: unknown, index: number, path: PropertyKey[], message: string): DeclarationProblem {
  const record = entry as Record<string, unknown>
  const field = path.map(String).join('.')
  const value = path.reduce<unknown>((node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key], record)
  const reason = message.replace(/^Invalid input: /, '')
  if (path[0] === 'default') {
    const type = String(record.type)
    return error_('variable-default-mismatch', `${name(entry, index)}: default ${JSON.stringify(value)} does not match type "${type}"; it must be ${DEFAULT_FORMS[type]}`, index)
  }
  if (path[0] === 'options' && path.length === 1) {
    const got = value === undefined ? 'it is missing' : `got ${JSON.stringify(value)}`
    return error_('enum-missing-options', `${name(entry, index)}: an enum needs a non-empty "options" list of {"value": ..., "label": ...} objects; ${got}`, index)
  }
  const problem = value === undefined ? `is missing (${reason})` : `is ${JSON.stringify(value)}: ${reason}`
  return error_('variable-invalid-field', `${name(entry, index)}: field "${field}" ${problem}`, index)
}

const DEFAULT_FORMS: Record<string, string> = {
  string: 'a string',
  number: 'a finite number',
  color: 'a "#rrggbb" color string',
  boolean: 'true or false',
  enum: 'a string naming one of the options',
  image: 'a string: an http(s) URL or a path in the project ("" for none)',
}

function name(entry: unknown, index: number): string {
  const id = (entry as {id?: unknown} | null)?.id
  return typeof id === 'string' && id !== '' ? `variable "${id}"` : `declaration #${index + 1}`
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function error_(code: DeclarationProblemCode, message: string, index?: number): DeclarationProblem {
  return index === undefined ? {code, severity: 'error', message} : {code, severity: 'error', message, index}
}
