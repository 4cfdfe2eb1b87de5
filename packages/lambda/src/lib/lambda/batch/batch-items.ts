import {fillOutputTemplate} from 'html-video-engine/internal/lib/batch/output-template.js'
import type {SourceRow} from 'html-video-engine/internal/lib/batch/rows/source-row.js'
import {EngineError, toEngineError, type ErrorJson} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {storageKeyProblem} from 'html-video-engine/internal/lib/render/storage-key.js'
import type {RenderConfig, SiteHandle} from '../render-input.js'
import {renderInput} from '../render-to-lambda.js'
import {downloadNameProblem} from '../output-settings.js'
import {validateConfig} from '../validate-config.js'
import {batchRenderId} from './batch-ids.js'
import type {BatchItem} from './batch-records.js'

/** `invalid`: on a dry run, a line that would fail to start (its error says why). */
export type BatchStatus = 'started' | 'failed-to-start' | 'would-invoke' | 'invalid'

/** What `render-batch` reports of each line. */
export interface BatchEntry {
  line: number
  outputKey?: string
  status: BatchStatus
  renderId?: string
  /** The execution the row runs as, once the batch reaches it. */
  executionArn?: string
  /** Why the line failed to start; on a dry run, why it would fail (status `invalid`). */
  error?: ErrorJson
}

export interface ItemSettings {
  batchId: string
  run: number
  siteHandle: Pick<SiteHandle, 'siteId'> & Partial<SiteHandle>
  bucketName: string
  /** Settings shared by every row; each row brings its own variables. */
  config: Omit<RenderConfig, 'variables'>
  /** `--output-key` with placeholders, for rows without an outputKey of their own. */
  outputKeyTemplate: string
  /** `--download-name` with the same placeholders, for rows without a downloadName of their own. */
  downloadNameTemplate?: string
}

/**
 * Turns one row of the batch file into the item the workflow renders, or the error that keeps it
 * from starting: no usable output key, a key another row already has, a config the render would
 * refuse, or an execution input over 256 KiB. `taken` holds the keys of the rows before it.
 */
export function batchItem(row: SourceRow, settings: ItemSettings, taken: Map<string, number>): {item: BatchItem} | {error: ErrorJson; outputKey?: string} {
  const line = row.line ?? row.index + 1
  const fail = (message: string, outputKey?: string) => ({error: new EngineError('INVALID_REQUEST', `line ${line}: ${message}`).toJSON(), outputKey})
  if (row.problems.length > 0) return fail(row.problems.map((problem) => (problem.field ? `${problem.field}: ${problem.reason}` : problem.reason)).join('; '))
  let outputKey = row.output
  if (outputKey === undefined) {
    const filled = fillOutputTemplate(settings.outputKeyTemplate, row.index, {...row.data, ...row.values}, '--output-key')
    if (!filled.ok) return fail(filled.problems.map((problem) => `${problem.field}: ${problem.reason}`).join('; '))
    const problem = storageKeyProblem(filled.path)
    if (problem) return fail(`--output-key gives "${filled.path}", which ${problem}`, filled.path)
    outputKey = filled.path
  }
  const owner = taken.get(outputKey)
  if (owner !== undefined) return fail(`outputKey "${outputKey}" is also the output of line ${owner}; give each row its own`, outputKey)
  const download = rowDownloadName(row, settings.downloadNameTemplate)
  if ('problem' in download) return fail(download.problem, outputKey)
  const renderId = batchRenderId(settings.batchId, settings.run, row.index)
  const config = {...settings.config, variables: row.values, ...(download.name !== undefined && {downloadName: download.name})}
  try {
    validateConfig(renderInput({siteHandle: settings.siteHandle, bucketName: settings.bucketName, config, outputKey}, renderId))
  } catch (error) {
    // As renderToLambda reports it (the spec's "[validateConfig] config: …"); the entry names the line.
    return {error: toEngineError(error).toJSON(), outputKey}
  }
  taken.set(outputKey, line)
  return {item: {index: row.index, line, renderId, outputKey, config, data: row.data, columns: row.columns}}
}

/**
 * The row's download name: its own `downloadName`, else `--download-name` filled from the row
 * (values made safe for file names), checked by the rules of `lambda render --download-name`.
 */
function rowDownloadName(row: SourceRow, template: string | undefined): {name?: string} | {problem: string} {
  if (row.downloadName !== undefined) {
    const problem = downloadNameProblem(row.downloadName)
    return problem ? {problem: `"downloadName": ${JSON.stringify(row.downloadName.slice(0, 300))} ${problem}`} : {name: row.downloadName}
  }
  if (template === undefined) return {}
  const filled = fillOutputTemplate(template, row.index, {...row.data, ...row.values}, '--download-name')
  if (!filled.ok) return {problem: filled.problems.map((problem) => `${problem.field}: ${problem.reason}`).join('; ')}
  const problem = downloadNameProblem(filled.path)
  return problem ? {problem: `--download-name gives ${JSON.stringify(filled.path.slice(0, 300))}, which ${problem}`} : {name: filled.path}
}
