import {storageKeyProblem} from '../../render/storage-key.js'
import {typeRowValues, type DeclarationsById} from './typed-values.js'

/** Where a row sits in its file, for messages: JSON arrays count rows, JSON Lines and CSV count lines. */
export interface RowPosition {
  /** Position among the rows, from 0: `{index}` of the output template. */
  index: number
  /** Line of the file the row starts on, from 1 (JSON Lines, CSV, TSV). */
  line?: number
}

/** One row as read, before the batch checks it against the composition and the template. */
export interface SourceRow extends RowPosition {
  /** What the file says, typed (CSV cells by the declarations): the rows' identity is hashed over it. */
  written: Record<string, unknown>
  /** Variable values of the row: only declared variables, when the declarations are known. */
  values: Record<string, unknown>
  /** The row's columns that are not declared variables (nor its output fields): row data, never sent to the page. */
  data: Record<string, unknown>
  /**
   * The row's own columns as read, in order (CSV: every header column, its text; JSON: the object's
   * keys, a wrapped row's variables flattened): the first columns of the result sheet.
   */
  columns: Record<string, unknown>
  /** The row's own output (an `output` or `outputKey` field or column): a relative path or storage key. */
  output?: string
  /**
   * The file name a browser saves the row's output under (a `downloadName` field or column): the
   * serverless batch sends it as Content-Disposition and checks it as a name; a local batch, whose
   * outputs are files already, leaves it aside.
   */
  downloadName?: string
  /** What is wrong with the row as written; a row with problems never renders. */
  problems: RowFieldProblem[]
}

export interface RowFieldProblem {
  /** The key or column at fault, when one is. */
  field?: string
  reason: string
}

/** Fields that name a row's output rather than a variable: `output` (local) and `outputKey` (the serverless batch line). */
export const OUTPUT_FIELDS = ['output', 'outputKey'] as const
/** The field or column naming a row's download name; like the output fields, not a variable unless declared. */
export const DOWNLOAD_NAME_FIELD = 'downloadName'

/**
 * Splits a row object into variable values and its own output. Two shapes are accepted, so that one
 * file serves the local batch and the serverless one: flat (`{"title": "Ada", "output": "a.mp4"}`)
 * and wrapped (`{"outputKey": "a.mp4", "variables": {"title": "Ada"}}`). A declared variable named
 * like an output field stays a variable.
 */
export function splitRow(object: Record<string, unknown>, byId: DeclarationsById): Pick<SourceRow, 'values' | 'data' | 'columns' | 'output' | 'downloadName' | 'problems'> {
  const declared: ReadonlySet<string> | ReadonlyMap<string, unknown> = byId ?? new Set<string>()
  const outputKeys = OUTPUT_FIELDS.filter((key) => Object.hasOwn(object, key) && !declared.has(key))
  const namesDownload = Object.hasOwn(object, DOWNLOAD_NAME_FIELD) && !declared.has(DOWNLOAD_NAME_FIELD)
  const rowFields: readonly string[] = namesDownload ? [...outputKeys, DOWNLOAD_NAME_FIELD] : outputKeys
  const wrapped = !declared.has('variables') && isPlainObject(object.variables) && Object.keys(object).every((key) => key === 'variables' || rowFields.includes(key))
  const given: Record<string, unknown> = wrapped ? {...(object.variables as Record<string, unknown>)} : {...object}
  if (!wrapped) for (const key of rowFields) delete given[key]
  const columns = wrapped ? {...Object.fromEntries(rowFields.filter((key) => Object.hasOwn(object, key)).map((key) => [key, object[key]])), ...given} : object
  const typed = typeRowValues(given, byId)
  const problems: RowFieldProblem[] = [...typed.problems]
  const named = outputKeys.map((key) => ({key, value: object[key]})).filter(({value}) => value !== undefined && value !== null && value !== '')
  for (const {key, value} of named) {
    const problem = outputProblem(`"${key}"`, value)
    if (problem) problems.push(problem)
  }
  const strings = named.filter(({value}) => typeof value === 'string').map(({value}) => value as string)
  if (new Set(strings).size > 1) problems.push({field: '"output"', reason: `output "${strings[0]}" and outputKey "${strings[1]}" differ; keep one of them`})
  const download = namesDownload ? downloadNameField(`"${DOWNLOAD_NAME_FIELD}"`, object[DOWNLOAD_NAME_FIELD]) : {}
  if (download.problem) problems.push(download.problem)
  return {values: typed.values, data: typed.data, columns, output: problems.length === 0 ? strings[0] : undefined, ...(download.name !== undefined && {downloadName: download.name}), problems}
}

/** A download name as written: a string, or left out when empty; its rules as a name are the serverless batch's. */
export function downloadNameField(field: string, value: unknown): {name?: string; problem?: RowFieldProblem} {
  if (value === undefined || value === null || value === '') return {}
  if (typeof value !== 'string') return {problem: {field, reason: `must be a file name such as "Ada.mp4", got ${kindOf(value)}`}}
  return {name: value}
}

/** An output field (`field` as it is to be shown) must be a relative path that cannot climb out of where outputs go. */
export function outputProblem(field: string, value: unknown): RowFieldProblem | undefined {
  if (typeof value !== 'string') return {field, reason: `must be a relative path such as out/ada.mp4, got ${kindOf(value)}`}
  const problem = storageKeyProblem(value)
  return problem ? {field, reason: `"${value.slice(0, 80)}" ${problem}; use a relative path of names separated by "/", such as out/ada.mp4`} : undefined
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}

/** A row that could not be read as a row object: nothing of it but the reason. */
export function unreadableRow(reason: string): Pick<SourceRow, 'written' | 'values' | 'data' | 'columns' | 'problems'> {
  return {written: {}, values: {}, data: {}, columns: {}, problems: [{reason}]}
}
