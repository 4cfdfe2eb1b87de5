import {z} from 'zod'
import type {ErrorJson} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {RowWarning} from 'html-video-engine/internal/lib/batch/batch-manifest.js'
import type {WebhookDelivery} from 'html-video-engine/internal/lib/notify/index.js'
import {renderConfigSchema} from '../render-input.js'
import type {RenderOutcome} from '../render-outcome.js'

/**
 * A serverless batch in the bucket, under `batches/<batchId>/`:
 *
 * - `batch.json`: what the batch is (site, shared settings, row count, the frames and chunks of one
 *   render) and each run of it (the first, and one per `--resume`), written by the client;
 * - `runs/<run>/items.jsonl`: the rows that run renders, one line each, read by the workflow's
 *   Distributed Map (the rows never pass through a state's input);
 * - `rows/<index>.json`: each finished row (render id, status, output, error), written by the
 *   workflow as the row ends: the batch's journal;
 * - `manifest.json`: every row in one file, and `results.csv`, the result sheet: written by the
 *   workflow when a run ends;
 * - `rejected.jsonl`: the lines that never became a row; `webhook.json`: the batch's webhook.
 */
export const BATCHES_PREFIX = 'batches/'
export const batchPrefix = (batchId: string) => `${BATCHES_PREFIX}${batchId}/`
export const batchRecordKey = (batchId: string) => `${batchPrefix(batchId)}batch.json`
export const batchItemsKey = (batchId: string, run: number) => `${batchPrefix(batchId)}runs/${run}/items.jsonl`
/** Where a run's Distributed Map writes its children's results (its ResultWriter). */
export const batchMapResultsPrefix = (batchId: string, run: number) => `${batchPrefix(batchId)}runs/${run}/map-results`
export const batchRowsPrefix = (batchId: string) => `${batchPrefix(batchId)}rows/`
export const batchRowKey = (batchId: string, index: number) => `${batchRowsPrefix(batchId)}${index}.json`
export const batchManifestKey = (batchId: string) => `${batchPrefix(batchId)}manifest.json`
/** The result sheet beside the manifest, written with it. */
export const batchResultsKey = (batchId: string) => `${batchPrefix(batchId)}results.csv`
/** The batch's webhook (URL, signing secret, caller data), stored by the client: never in an execution's input. */
export const batchWebhookKey = (batchId: string) => `${batchPrefix(batchId)}webhook.json`
/** Lines that never became a row (their error and their columns), JSON Lines in line order: the sheet has a line for each. */
export const batchRejectedKey = (batchId: string) => `${batchPrefix(batchId)}rejected.jsonl`

/** One row of one run: what the workflow turns into a render (the rest comes from the run's input). */
export const batchItemSchema = z.object({
  index: z.number().int().nonnegative(),
  /** The line of the batch file the row came from. */
  line: z.number().int().positive().optional(),
  renderId: z.string(),
  outputKey: z.string(),
  config: renderConfigSchema,
  /** Row data: the row's columns that are not variables (never sent to the page); the row's webhook and the manifest carry it. */
  data: z.record(z.string(), z.unknown()).default({}),
  /** The row's own columns as read: the first columns of its line in the result sheet. */
  columns: z.record(z.string(), z.unknown()).optional(),
})
export type BatchItem = z.infer<typeof batchItemSchema>

export interface BatchRun {
  run: number
  executionArn: string
  startedAt: string
  /** Rows this run renders. */
  rows: number
}

export interface BatchRecord {
  batchId: string
  createdAt: string
  bucketName: string
  siteId: string
  entry: string
  /** The render workflow each row runs as. */
  stateMachineArn: string
  /** Rows the batch file holds. */
  total: number
  /** Lines that never became a row (not an object, an unusable outputKey, a config over the input limit). */
  rejected: number
  /** Frames and parallel chunks of one row's render, planned from the composition when the batch was started. */
  framesPerRow?: number
  chunksPerRender?: number
  maxConcurrent: number
  toleratedFailurePercentage: number
  /** The batch has a webhook (`batchWebhookKey`): a call per row as it ends and one when a run ends. */
  webhook?: boolean
  runs: BatchRun[]
}

/** A line that never became a row, as `rejected.jsonl` keeps it. */
export interface RejectedLine {
  index: number
  line: number
  outputKey?: string
  columns: Record<string, unknown>
  error: ErrorJson
}

/** `rows/<index>.json`, written by the workflow when a row's render ends. */
export interface BatchRowRecord {
  index: number
  run: number
  renderId: string
  outputKey: string
  /** `skipped`: the check pass stopped the render before any chunk (`--on-overflow skip`, `--check-only`). */
  status: 'succeeded' | 'failed' | 'skipped' | 'cached'
  bytes?: number
  totalFrames?: number
  /** How the render ended well (see RenderOutcome). */
  result?: RenderOutcome
  /** The row's webhook call, once made. */
  webhook?: WebhookDelivery
  /** What the workflow caught: for a failed render, `States.TaskFailed` and its execution as JSON. */
  error?: string
  cause?: string
}

/** A row of the batch manifest: its record with its outcome's fields, a failure told as the render's own error, and its row data. */
export type BatchManifestRow = Omit<BatchRowRecord, 'error' | 'cause' | 'result'> &
  Partial<Pick<RenderOutcome, 'sha256' | 'durationSeconds' | 'posterKey' | 'renderMs'>> & {
    error?: ErrorJson
    outputBucket?: string
    warnings?: RowWarning[]
    skippedReason?: string
    data?: Record<string, unknown>
  }

/** `manifest.json`: what the batch workflow writes when a run ends. */
export interface BatchManifestFile {
  batchId: string
  /** The run whose end wrote this manifest. */
  run: number
  writtenAt: string
  counts: {total: number; succeeded: number; cached: number; failed: number; skipped: number; rejected: number; missing: number}
  /** Every row that has ended, in row order: the latest run's record of it. */
  rows: BatchManifestRow[]
  /** The result sheet beside it (`results.csv`): every line of the batch file with its outcome. */
  resultsKey?: string
  /** The batch's `batch.completed` call, once made. */
  webhook?: WebhookDelivery
}
