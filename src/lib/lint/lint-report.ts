import {DECLARATION_PROBLEM_CODES, declarationsSchemaFile} from '../variables/index.js'
import type {LintFinding} from './lint-codes.js'

export interface LintReport {
  file: string
  findings: LintFinding[]
  errors: number
  warnings: number
  /** The JSON Schema of variable declarations, named when a finding is about them. */
  variablesSchema?: string
}

const DECLARATION_CODES: ReadonlySet<string> = new Set(DECLARATION_PROBLEM_CODES)

export function lintReport(file: string, findings: LintFinding[]): LintReport {
  const errors = findings.filter((finding) => finding.severity === 'error').length
  const aboutDeclarations = findings.some((finding) => DECLARATION_CODES.has(finding.code))
  return {file, findings, errors, warnings: findings.length - errors, ...(aboutDeclarations && {variablesSchema: declarationsSchemaFile()})}
}

/** One line per finding, `file:line  severity  code  message`, then a summary line. */
export function formatLintReport(report: LintReport): string {
  const lines = report.findings.map((finding) => {
    const location = finding.line === undefined ? finding.file : `${finding.file}:${finding.line}`
    return `${location}  ${finding.severity}  ${finding.code}  ${finding.message}`
  })
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`
  lines.push(
    report.findings.length === 0
      ? `${report.file}: no problems found`
      : `${report.file}: ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}`,
  )
  if (report.variablesSchema) lines.push(`Variable declarations: every field and rule is in the JSON Schema ${report.variablesSchema}`)
  return lines.join('\n') + '\n'
}
