import {COLOR_PATTERN, describeExpected, type VariableDeclaration} from './variable-declaration.js'

export type VariableFindingCode = 'undeclared' | 'type-mismatch' | 'enum-out-of-range'

export interface VariableFinding {
  code: VariableFindingCode
  /** The key as supplied. */
  variable: string
  value: unknown
  /** What would have been accepted, in words. */
  expected: string
  message: string
  /** 'warning' normally, 'error' under --strict-variables. */
  severity: 'warning' | 'error'
  /** Where the value came from, e.g. `--variables` or `data-variable-values on <div id="a"> (index.html:12)`. */
  source: string
}

export interface ValidateValuesOptions {
  /** Names the origin of the values in every message. */
  source: string
  /** Names the composition whose declarations are checked, for messages. */
  compositionId?: string
  strict?: boolean
}

/**
 * Checks override values against the declarations. Values are JSON-typed: "3" is not a number and
 * a color must be a "#rrggbb" string. Nothing is dropped here; the caller decides what a finding means.
 */
export function validateVariableValues(
  declarations: readonly VariableDeclaration[],
  values: Record<string, unknown>,
  options: ValidateValuesOptions,
): VariableFinding[] {
  const severity = options.strict ? 'error' : 'warning'
  const byId = new Map(declarations.map((declaration) => [declaration.id, declaration]))
  const findings: VariableFinding[] = []
  const of = options.compositionId === undefined ? 'the composition' : `composition "${options.compositionId}"`
  for (const [variable, value] of Object.entries(values)) {
    const finding = (code: VariableFindingCode, expected: string, message: string) =>
      findings.push({code, variable, value, expected, message: `${options.source}: ${message}`, severity, source: options.source})
    const declaration = byId.get(variable)
    if (!declaration) {
      const ids = declarations.map((d) => d.id).join(', ')
      const declared = declarations.length === 0 ? 'it declares no variables' : `declared: ${ids}`
      finding('undeclared', declarations.length === 0 ? 'no key (nothing is declared)' : `one of ${ids}`, `"${variable}" is not a declared variable of ${of} (${declared})`)
      continue
    }
    const expected = describeExpected(declaration)
    if (!matchesType(declaration, value)) {
      finding('type-mismatch', expected, `"${variable}" is ${JSON.stringify(value)}, but the declaration expects ${expected}`)
      continue
    }
    if (declaration.type === 'enum' && !declaration.options.some((option) => option.value === value)) {
      finding('enum-out-of-range', expected, `"${variable}" is ${JSON.stringify(value)}, which is not an option; use ${expected}`)
    }
  }
  return findings
}

function matchesType(declaration: VariableDeclaration, value: unknown): boolean {
  switch (declaration.type) {
    case 'string':
    case 'enum':
    case 'image':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'color':
      return typeof value === 'string' && COLOR_PATTERN.test(value)
  }
}
