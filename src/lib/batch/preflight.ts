import {dirname, join, relative, resolve, sep} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import type {CodePointRange} from '../fonts/font-subsets.js'
import {rowTextFallbacks} from '../fonts/row-text-coverage.js'
import {resolveVariables} from '../variables/resolve-variables.js'
import {validateVariableValues, type VariableFinding} from '../variables/validate-values.js'
import type {VariableDeclaration} from '../variables/variable-declaration.js'
import {fillOutputTemplate} from './output-template.js'

export const MANIFEST_FILE = 'manifest.json'

export interface PreflightInput {
  rows: readonly unknown[]
  /** `--output` template; relative paths resolve against `cwd`. */
  template: string
  cwd: string
  /** The top-level composition's declarations and id. */
  declarations: readonly VariableDeclaration[]
  compositionId: string
  /** `--variables-file` < `--variables`: the layer under every row. */
  baseVariables: Record<string, unknown>
  strict: boolean
  /**
   * Findings of compiling the composition once with the base layer (the base values themselves and
   * every sub-composition host): the same for every row, so they are reported once.
   */
  compositionFindings: readonly VariableFinding[]
  /** What the served fonts cover (undefined: not checked); with `strictFonts` a row outside it is a problem, else a warning. */
  fontCoverage?: readonly CodePointRange[]
  strictFonts?: boolean
  /** Font findings of compiling the composition once (families nobody serves): problems with `strictFonts`. */
  fontFindings?: readonly {code: string; message: string}[]
}

/** One row, ready to render. */
export interface BatchJob {
  /** Position in the batch file, from 0; also `{index}` in the template. */
  index: number
  /** Absolute output path. */
  output: string
  /** The command-line layer for this row: base values overlaid with the row. */
  overrides: Record<string, unknown>
  /** What the top-level composition will see: declared defaults < base < row. */
  variables: Record<string, unknown>
}

export interface PreflightProblem {
  /** Row index, when the problem belongs to one row. */
  row?: number
  /** The row key, placeholder or flag at fault. */
  field?: string
  reason: string
}

export interface PreflightResult {
  jobs: BatchJob[]
  /** `manifest.json` in the deepest directory that holds every output. */
  manifestPath: string
  /** Rows whose text no served font covers (without --strict-fonts). */
  warnings: {code: 'font-fallback'; message: string}[]
}

/**
 * Checks a whole batch before anything renders: every row must be an object, fill every
 * placeholder of the template, get an output path of its own, and (with --strict-variables) match
 * the declarations. All problems are collected and thrown together as one BATCH_PREFLIGHT error.
 */
export function preflightBatch(input: PreflightInput): PreflightResult {
  const problems: PreflightProblem[] = []
  if (input.rows.length === 0) problems.push({reason: 'the batch file has no rows; give at least one object of variable values'})
  if (input.strict) {
    for (const finding of input.compositionFindings.filter((f) => f.severity === 'error')) {
      problems.push({reason: `[${finding.code}] ${finding.message}`})
    }
  }

  if (input.strictFonts) {
    for (const finding of input.fontFindings?.filter((f) => f.code === 'font-fallback') ?? []) problems.push({reason: `[font-fallback] ${finding.message}`})
  }

  const jobs: BatchJob[] = []
  const owners = new Map<string, number>()
  input.rows.forEach((row, index) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      problems.push({row: index, reason: `must be a JSON object of variable values, got ${kindOf(row)}`})
      return
    }
    const values = row as Record<string, unknown>
    if (input.strict) {
      const findings = validateVariableValues(input.declarations, values, {source: `row ${index}`, compositionId: input.compositionId, strict: true})
      for (const finding of findings) problems.push({row: index, field: `"${finding.variable}"`, reason: describeFinding(finding)})
    }
    const filled = fillOutputTemplate(input.template, index, values)
    if (!filled.ok) {
      for (const problem of filled.problems) problems.push({row: index, ...problem})
      return
    }
    const output = resolve(input.cwd, filled.path)
    const owner = owners.get(output)
    if (owner !== undefined) {
      problems.push({
        row: index,
        field: '--output',
        reason: `"${relative(input.cwd, output) || output}" is also the output of row ${owner}; make the template unique per row, for example with {index}`,
      })
      return
    }
    owners.set(output, index)
    const overrides = {...input.baseVariables, ...values}
    jobs.push({index, output, overrides, variables: resolveVariables(input.declarations, overrides)})
  })

  const warnings: PreflightResult['warnings'] = []
  for (const fallback of rowTextFallbacks(jobs, input.fontCoverage)) {
    const reason = `[font-fallback] ${fallback.characters.map((character) => JSON.stringify(character)).join(' ')} ${fallback.characters.length === 1 ? 'is' : 'are'} in no served font, so ${fallback.characters.length === 1 ? 'it falls' : 'they fall'} back to another font; add a family that has ${fallback.characters.length === 1 ? 'it' : 'them'} (\`engine fonts add "…"\`) or an @font-face rule`
    if (input.strictFonts) problems.push({row: fallback.row, field: `"${fallback.variable}"`, reason})
    else warnings.push({code: 'font-fallback', message: `row ${fallback.row}, "${fallback.variable}": ${reason.replace('[font-fallback] ', '')}`})
  }

  const manifestPath = jobs.length > 0 ? join(commonDirectory(jobs.map((job) => dirname(job.output))), MANIFEST_FILE) : ''
  const clash = jobs.find((job) => job.output === manifestPath)
  if (clash) problems.push({row: clash.index, field: '--output', reason: `"${manifestPath}" is where the batch manifest goes; choose another name`})

  if (problems.length > 0) {
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`
    throw new EngineError(
      'BATCH_PREFLIGHT',
      `--batch: ${count} found before rendering, so nothing was rendered:\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}\n` +
        'Fix the batch file, the --output template or the variables, then run again.',
      {problems},
    )
  }
  return {jobs, manifestPath, warnings}
}

export function formatProblem(problem: PreflightProblem): string {
  const where = [problem.row === undefined ? undefined : `row ${problem.row}`, problem.field].filter(Boolean).join(', ')
  return where ? `${where}: ${problem.reason}` : problem.reason
}

function describeFinding(finding: VariableFinding): string {
  switch (finding.code) {
    case 'undeclared':
      return `[undeclared] not a declared variable (expected ${finding.expected})`
    case 'type-mismatch':
      return `[type-mismatch] ${JSON.stringify(finding.value)} given, expected ${finding.expected}`
    case 'enum-out-of-range':
      return `[enum-out-of-range] ${JSON.stringify(finding.value)} is not an option, expected ${finding.expected}`
  }
}

/** Deepest directory containing all of `directories` (absolute paths). */
export function commonDirectory(directories: readonly string[]): string {
  const split = directories.map((directory) => directory.split(sep))
  const first = split[0]
  let length = first.length
  for (const parts of split.slice(1)) {
    let same = 0
    while (same < Math.min(length, parts.length) && parts[same] === first[same]) same++
    length = same
  }
  return first.slice(0, length).join(sep) || sep
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}
