export type WebhookEventType = 'render.completed' | 'render.failed' | 'batch.completed'

/** The JSON body of every webhook call; fields that do not apply are null, never missing. */
export interface WebhookPayload {
  type: WebhookEventType
  /** The render's id (server: requestId; Lambda: renderId; CLI: a fresh id per render or batch). */
  id: string
  status: 'completed' | 'failed'
  /** Where the output is: a file path (CLI), a download path (server) or an s3:// URL (Lambda). */
  output: string | null
  poster: string | null
  durationSeconds: number | null
  renderMs: number | null
  error: {code: string; message: string} | null
  /** render.* of a batch row: its index and its row data (the columns that are not variables); null otherwise. */
  row: WebhookRow | null
  /** What the caller passed with `--webhook-data` (or `webhookData`), echoed as given; null without it. */
  data: WebhookData | null
  /** batch.completed only: how the rows ended. */
  counts?: Record<string, number>
}

export interface WebhookRow {
  index: number
  data: Record<string, unknown>
}

/** Caller data echoed in a webhook body: a JSON object (see parseWebhookData). */
export type WebhookData = Record<string, unknown>

export interface RenderOutcome {
  id: string
  output?: string | null
  poster?: string | null
  durationSeconds?: number | null
  renderMs?: number | null
  error?: {code: string; message: string} | null
  row?: WebhookRow | null
  data?: WebhookData | null
}

/** render.completed when there is no error, render.failed otherwise. */
export function renderPayload(outcome: RenderOutcome): WebhookPayload {
  const failed = outcome.error != null
  return {
    type: failed ? 'render.failed' : 'render.completed',
    id: outcome.id,
    status: failed ? 'failed' : 'completed',
    output: failed ? null : (outcome.output ?? null),
    poster: failed ? null : (outcome.poster ?? null),
    durationSeconds: outcome.durationSeconds ?? null,
    renderMs: outcome.renderMs ?? null,
    error: outcome.error ? {code: outcome.error.code, message: outcome.error.message} : null,
    row: outcome.row ?? null,
    data: outcome.data ?? null,
  }
}

/** batch.completed: `output` is the manifest; the status is failed when any row failed. */
export function batchPayload(batch: {id: string; manifest: string; elapsedMs: number; counts: Record<string, number>; data?: WebhookData}): WebhookPayload {
  const failed = (batch.counts.failed ?? 0) > 0
  return {
    type: 'batch.completed',
    id: batch.id,
    status: failed ? 'failed' : 'completed',
    output: batch.manifest,
    poster: null,
    durationSeconds: null,
    renderMs: batch.elapsedMs,
    error: failed ? {code: 'BATCH_ROW_FAILED', message: `${batch.counts.failed} row(s) failed; see the manifest`} : null,
    row: null,
    data: batch.data ?? null,
    counts: batch.counts,
  }
}
