import {dirname, join, relative, resolve, sep} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import type {CodePointRange} from '../fonts/font-subsets.js'
import {rowTextFallbacks} from '../fonts/row-text-coverage.js'
import {resolveVariables} from '../variables/resolve-variables.js'
import {validateVariableValues, type VariableFinding} from '../variables/validate-values.js'
import type {VariableDeclaration} from '../variables/variable-declaration.js'
import {checkImageValue, type ImageCheckContext} from '../variables/image-values.js'
import {imageValues} from '../variables/image-variable-values.js'
import {fillOutputTemplate} from './output-template.js'
import {outputNameProblem} from '../render/output-name-length.js'
import {ACCEPTED_BATCH_FORMATS} from './rows/batch-format.js'
import type {SourceRow} from './rows/source-row.js'
import {RowsHash} from './rows/rows-hash.js'

export const MANIFEST_FILE = 'manifest.json'

/** Problems and warnings listed by name; the rest are counted, so that a broken file of 100,000 rows still gives a readable message. */
export const MAX_LISTED = 20

export interface PreflightInput {
  /** The rows in file order, as read (readRows). */
  rows: AsyncIterable<SourceRow> | Iterable<SourceRow>
  /** `--output` template; relative paths (and rows' own outputs) resolve against `cwd`. */
  template: string
  /** Rows may name their own output (an `output`/`outputKey` field): true unless `--output` was given, which wins. */
  rowOutputs?: boolean
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
  /** Where rows' `image` values are looked up; each distinct value is checked once (exists, is an image, may be loaded). */
  images?: ImageCheckContext
  /** Why a row's output cannot be written (a remote store's key rules), checked for every row. */
  outputProblem?: (output: string) => string | undefined
}

/** One row, ready to render. */
export interface BatchJob {
  /** Position in the batch file, from 0; also `{index}` in the template. */
  index: number
  /** Absolute output path (for a remote output: the local file that is uploaded). */
  output: string
  /** Where a remote output is stored (`s3://bucket/key`): what the manifest and events name. */
  url?: string
  /** The command-line layer for this row: base values overlaid with the row. */
  overrides: Record<string, unknown>
  /** What the top-level composition will see: declared defaults < base < row. */
  variables: Record<string, unknown>
  /** The row's data: its columns that are not declared variables (absent when it has none). */
  data?: Record<string, unknown>
  /** The row's own columns as read (the result sheet's first columns). */
  columns?: Record<string, unknown>
}

export interface PreflightProblem {
  /** Row index, when the problem belongs to one row. */
  row?: number
  /** The row's line in the file (JSON Lines, CSV, TSV). */
  line?: number
  /** The row key, column, placeholder or flag at fault. */
  field?: string
  reason: string
}

export interface PreflightResult {
  /** Rows in the file. */
  total: number
  /** `manifest.json` in the deepest directory that holds every output. */
  manifestPath: string
  /** Rows whose text no served font covers (without --strict-fonts): the first MAX_LISTED, then one that counts the rest. */
  warnings: {code: 'font-fallback' | 'row-output-ignored'; message: string}[]
  /** Over the rows as written (not the file's formatting): a resumed batch must have the same rows. */
  rowsSha256: string
  /** Every output and the row it belongs to. */
  outputs: ReadonlyMap<string, number>
  /** Names of the row-data columns (not declared variables), in order of appearance: the first MAX_DATA_COLUMNS. */
  dataColumns: string[]
  /** How many distinct row-data columns there are, counted up to MAX_DATA_COLUMNS_COUNTED. */
  dataColumnCount: number
}

/** Row-data column names the batch's notice lists... */
export const MAX_DATA_COLUMNS = 50
/** ...and counts: a file whose every row has keys of its own stays bounded. */
export const MAX_DATA_COLUMNS_COUNTED = 1000

/**
 * Checks a whole batch before anything renders, reading its rows once as a stream: every row must
 * be an object of values, get an output path of its own (its `output` field, or the template
 * filled), and (with --strict-variables) match the declarations. Each good row is handed to
 * `accept` as it is checked; all problems are collected and thrown together as one BATCH_PREFLIGHT
 * error, the first MAX_LISTED by name.
 */
export async function preflightBatch(input: PreflightInput, accept: (job: BatchJob) => void | Promise<void>): Promise<PreflightResult> {
  const problems = new ProblemList()
  if (input.strict) {
    for (const finding of input.compositionFindings.filter((f) => f.severity === 'error')) problems.add({reason: `[${finding.code}] ${finding.message}`})
  }
  if (input.strictFonts) {
    for (const finding of input.fontFindings?.filter((f) => f.code === 'font-fallback' || f.code === 'font-substituted') ?? []) problems.add({reason: `[${finding.code}] ${finding.message}`})
  }

  // A campaign names the same few images in many rows: each distinct value is looked at once.
  const imageChecks = new Map<string, Promise<string | undefined>>()
  const imageReason = (value: string, context: ImageCheckContext) => {
    let check = imageChecks.get(value)
    if (!check) imageChecks.set(value, (check = checkImageValue(value, context)))
    return check
  }
  const hash = new RowsHash()
  const owners = new Map<string, number>()
  const warnings: PreflightResult['warnings'] = []
  let warned = 0
  let directory: string | undefined
  let total = 0
  let ignoredOutputs = 0
  const dataColumns = new Set<string>()
  for await (const row of input.rows) {
    for (const key of Object.keys(row.data)) if (dataColumns.size < MAX_DATA_COLUMNS_COUNTED) dataColumns.add(key)
    hash.add(row.written)
    total++
    const at = {row: row.index, ...(row.line !== undefined && {line: row.line})}
    for (const problem of row.problems) problems.add({...at, ...problem})
    if (row.problems.length > 0) continue
    if (input.strict) {
      const findings = validateVariableValues(input.declarations, row.values, {source: `row ${row.index}`, compositionId: input.compositionId, strict: true})
      for (const finding of findings) problems.add({...at, field: `"${finding.variable}"`, reason: describeFinding(finding)})
    }
    if (row.output !== undefined && !input.rowOutputs) ignoredOutputs++
    const output = outputOf(row, input, problems)
    if (output === undefined) continue
    const unwritable = input.outputProblem?.(output)
    if (unwritable !== undefined) {
      problems.add({...at, field: '--output', reason: unwritable})
      continue
    }
    const owner = owners.get(output)
    if (owner !== undefined) {
      const own = row.output !== undefined && input.rowOutputs
      const how = own ? 'give each row its own output' : 'make the template unique per row, for example with {index}'
      problems.add({...at, field: own ? '"output"' : '--output', reason: `"${relative(input.cwd, output) || output}" is also the output of row ${owner}; ${how}`})
      continue
    }
    const tooLong = outputNameProblem(output)
    if (tooLong) {
      problems.add({...at, field: row.output !== undefined && input.rowOutputs ? '"output"' : '--output', reason: `${tooLong}; choose a shorter name`})
      continue
    }
    owners.set(output, row.index)
    directory = directory === undefined ? dirname(output) : commonDirectory([directory, dirname(output)])
    const overrides = {...input.baseVariables, ...row.values}
    const hasData = Object.keys(row.data).length > 0
    const job: BatchJob = {index: row.index, output, overrides, variables: resolveVariables(input.declarations, overrides), ...(hasData && {data: row.data}), columns: row.columns}
    if (input.images) {
      for (const {variable, value} of imageValues(input.declarations, job.variables)) {
        const reason = await imageReason(value, input.images)
        if (reason !== undefined) problems.add({...at, field: `"${variable}"`, reason: `[image] ${JSON.stringify(value)} ${reason}`})
      }
    }
    for (const fallback of rowTextFallbacks([job], input.fontCoverage)) {
      const reason = `[font-fallback] ${fallback.characters.map((character) => JSON.stringify(character)).join(' ')} ${fallback.characters.length === 1 ? 'is' : 'are'} in no served font, so ${fallback.characters.length === 1 ? 'it falls' : 'they fall'} back to another font; add a family that has ${fallback.characters.length === 1 ? 'it' : 'them'} (\`engine fonts add "…"\`) or an @font-face rule`
      if (input.strictFonts) problems.add({...at, field: `"${fallback.variable}"`, reason})
      else if (warned++ < MAX_LISTED) warnings.push({code: 'font-fallback', message: `row ${fallback.row}, "${fallback.variable}": ${reason.replace('[font-fallback] ', '')}`})
    }
    if (problems.count === 0) await accept(job)
  }
  if (warned > MAX_LISTED) warnings.push({code: 'font-fallback', message: `${warned - MAX_LISTED} more rows have characters in no served font`})
  if (ignoredOutputs > 0) {
    warnings.push({code: 'row-output-ignored', message: `${ignoredOutputs} row${ignoredOutputs === 1 ? ' names its' : 's name their'} own output (an output or outputKey field), but --output is given: the template names every file; drop --output to use the rows' names`})
  }
  if (total === 0) problems.add({reason: `the batch file has no rows; it must hold ${ACCEPTED_BATCH_FORMATS}`})

  const manifestPath = directory === undefined ? '' : join(directory, MANIFEST_FILE)
  const clash = owners.get(manifestPath)
  if (clash !== undefined) problems.add({row: clash, field: '--output', reason: `"${manifestPath}" is where the batch manifest goes; choose another name`})
  problems.throwIfAny()
  return {total, manifestPath, warnings, rowsSha256: hash.digest(), outputs: owners, dataColumns: [...dataColumns].slice(0, MAX_DATA_COLUMNS), dataColumnCount: dataColumns.size}
}

/** The row's absolute output: its own `output` field (unless --output was given), else the template filled from its values. */
function outputOf(row: SourceRow, input: PreflightInput, problems: ProblemList): string | undefined {
  if (row.output !== undefined && input.rowOutputs) return resolve(input.cwd, row.output)
  const filled = fillOutputTemplate(input.template, row.index, {...row.data, ...row.values})
  if (filled.ok) return resolve(input.cwd, filled.path)
  for (const problem of filled.problems) problems.add({row: row.index, ...(row.line !== undefined && {line: row.line}), ...problem})
  return undefined
}

/** Every problem counted, the first MAX_LISTED kept for the message. */
class ProblemList {
  count = 0
  private readonly listed: PreflightProblem[] = []

  add(problem: PreflightProblem): void {
    if (this.count++ < MAX_LISTED) this.listed.push(problem)
  }

  throwIfAny(): void {
    if (this.count === 0) return
    const count = `${this.count.toLocaleString('en-US')} problem${this.count === 1 ? '' : 's'}`
    const rest = this.count > MAX_LISTED ? `\n  … and ${(this.count - MAX_LISTED).toLocaleString('en-US')} more` : ''
    throw new EngineError(
      'BATCH_PREFLIGHT',
      `--batch: ${count} found before rendering, so nothing was rendered:\n${this.listed.map((p) => `  - ${formatProblem(p)}`).join('\n')}${rest}\n` +
        'Fix the batch file (.csv/.tsv with a header of variable ids, .jsonl/.ndjson, or .json; see docs/guides/batch.md), the --output template or the variables, then run again.',
      {problems: this.listed, count: this.count},
    )
  }
}

export function formatProblem(problem: PreflightProblem): string {
  const row = problem.row === undefined ? undefined : `row ${problem.row}${problem.line === undefined ? '' : ` (line ${problem.line})`}`
  const where = [row, problem.field].filter(Boolean).join(', ')
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
