import {EngineError} from '../errors/engine-error.js'
import type {VariableFinding} from './validate-values.js'

/** Under --strict-variables every finding is an error: one EngineError lists all of them. */
export function assertNoStrictErrors(findings: readonly VariableFinding[]): void {
  const errors = findings.filter((finding) => finding.severity === 'error')
  if (errors.length === 0) return
  const list = errors.map((finding) => `  - [${finding.code}] ${finding.message}`).join('\n')
  throw new EngineError(
    'STRICT_VARIABLES',
    `${errors.length} variable problem${errors.length === 1 ? '' : 's'} with --strict-variables:\n${list}\nFix the values or drop --strict-variables to render with warnings.`,
    {findings: errors},
  )
}
