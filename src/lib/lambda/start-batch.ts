import type {SFNClient} from '@aws-sdk/client-sfn'
import {toEngineError, type ErrorJson} from '../errors/engine-error.js'
import type {AwsClientOptions} from './aws-clients.js'
import type {BatchLine} from './batch-lines.js'
import {bindingConcurrency, DEFAULT_MAX_PARALLEL_CHUNKS, type ConcurrencyLimits} from './chunk-plan.js'
import type {RenderConfig, SiteHandle} from './render-input.js'
import {renderInput, renderToLambda} from './render-to-lambda.js'
import {validateConfig} from './validate-config.js'

export const DEFAULT_MAX_CONCURRENT_STARTS = 50

/** `invalid`: on a dry run, a line that would fail to start (its error says why). */
export type BatchStatus = 'started' | 'failed-to-start' | 'would-invoke' | 'invalid'

export interface BatchEntry {
  line: number
  outputKey?: string
  status: BatchStatus
  renderId?: string
  executionArn?: string
  /** Why the line failed to start; on a dry run, why it would fail (status `invalid`). */
  error?: ErrorJson
}

export interface StartBatchOptions extends AwsClientOptions {
  lines: readonly BatchLine[]
  siteHandle: Pick<SiteHandle, 'siteId'> & Partial<SiteHandle>
  bucketName: string
  /** Not needed for a dry run. */
  stateMachineArn?: string
  /** Settings shared by every line; each line brings its own variables. */
  config: Omit<RenderConfig, 'variables'>
  maxConcurrent?: number
  dryRun?: boolean
  sfn?: SFNClient
  /** Called as each line settles (in completion order). */
  onEntry?: (entry: BatchEntry) => void
}

/**
 * Starts one render per line, at most `maxConcurrent` starts in flight. Every line ends as
 * `started` or `failed-to-start` (a dry run: `would-invoke`, or `invalid` with the error that
 * would stop it; nothing started); one line failing
 * never stops or undoes another. Entries come back in line order.
 */
export async function startRenderBatch(options: StartBatchOptions): Promise<BatchEntry[]> {
  const entries: BatchEntry[] = new Array(options.lines.length)
  let next = 0
  const worker = async () => {
    while (next < options.lines.length) {
      const index = next++
      entries[index] = await startLine(options.lines[index], options)
      options.onEntry?.(entries[index])
    }
  }
  const concurrency = Math.max(1, Math.min(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_STARTS, options.lines.length))
  await Promise.all(Array.from({length: concurrency}, worker))
  return entries
}

async function startLine(line: BatchLine, options: StartBatchOptions): Promise<BatchEntry> {
  const base = {line: line.line, outputKey: line.outputKey}
  if ('error' in line) return {...base, status: options.dryRun ? 'invalid' : 'failed-to-start', error: line.error}
  const request = {...options, config: {...options.config, variables: line.variables}, outputKey: line.outputKey}
  if (options.dryRun) {
    try {
      validateConfig(renderInput(request))
      return {...base, status: 'would-invoke'}
    } catch (error) {
      return {...base, status: 'invalid', error: toEngineError(error).toJSON()}
    }
  }
  try {
    const handle = await renderToLambda({...request, stateMachineArn: options.stateMachineArn!})
    return {...base, status: 'started', renderId: handle.renderId, executionArn: handle.executionArn}
  } catch (error) {
    return {...base, status: 'failed-to-start', error: toEngineError(error).toJSON()}
  }
}

export function batchCounts(entries: readonly BatchEntry[]): Record<BatchStatus, number> {
  const counts: Record<BatchStatus, number> = {started: 0, 'failed-to-start': 0, 'would-invoke': 0, invalid: 0}
  for (const entry of entries) counts[entry.status]++
  return counts
}

/**
 * Spec guidance: keep `--max-concurrent` near floor(reservedConcurrency / maxParallelChunks); a
 * function without reserved concurrency is bounded by the account's unreserved pool instead.
 * Returns the warning to show when the batch could ask for more functions than that.
 */
export function concurrencyWarning(maxConcurrent: number, maxParallelChunks: number | undefined, limits: ConcurrencyLimits): string | undefined {
  const binding = bindingConcurrency(limits)
  if (!binding) return undefined
  const {limit, reserved} = binding
  const parallel = maxParallelChunks ?? DEFAULT_MAX_PARALLEL_CHUNKS
  if (maxConcurrent * parallel <= limit) return undefined
  const suggested = Math.max(1, Math.floor(limit / parallel))
  const what = reserved ? `the reserved concurrency of ${limit}` : `the account's unreserved concurrency of ${limit}`
  const raise = reserved ? 'or deploy with a higher --concurrency' : 'or ask AWS for a higher "Concurrent executions" quota'
  return (
    `--max-concurrent ${maxConcurrent} x ${parallel} parallel chunks = ${maxConcurrent * parallel} functions at once, above ${what}: ` +
    `renders will be throttled; use --max-concurrent ${suggested}, lower --max-parallel-chunks, ${raise}`
  )
}
