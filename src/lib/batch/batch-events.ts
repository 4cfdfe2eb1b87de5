import type {RenderEvent} from '../render/render-events.js'
import type {WebhookDelivery} from '../notify/index.js'
import type {RowStatus, StatusCounts} from './batch-manifest.js'
import type {ShardSpec} from '../shard/shard-spec.js'

/**
 * What a batch reports while it runs (`--json` prints one per line): the batch starting, each row
 * changing status, each row's own render events tagged with `row`, batch-level warnings, and one
 * final summary.
 */
export type BatchEvent =
  | {
      type: 'batch-start'
      composition: string
      manifest: string
      rows: number
      /** Rows this run renders; the others are already completed (--resume). */
      toRender: number
      concurrency: number
      failFast: boolean
      /** Present when this run renders one shard of the batch: which, and where that came from. */
      shard?: ShardSpec
      /** Present under `--check-only`: the rows are checked, never rendered. */
      checkOnly?: true
    }
  | {
      type: 'row'
      row: number
      status: RowStatus
      output: string
      renderMs?: number
      durationSeconds?: number
      error?: {code: string; message: string}
      skippedReason?: string
      /** The row's data (its columns that are not variables), when it has any. */
      data?: Record<string, unknown>
    }
  /** Rows never launched (an interruption, --batch-fail-fast), all skipped at once: one event, not one per row. */
  | {type: 'rows-skipped'; count: number; reason: string}
  | RowRenderEvent
  | {type: 'warning'; code: string; message: string; level?: 'info'}
  | ({type: 'webhook'; row: number | null} & WebhookDelivery)
  | {type: 'batch-done'; counts: StatusCounts; manifest: string; elapsedMs: number; rowsPerMinute: number; results?: string}

/** A row's render event; its `error` event is left out, since the row's `failed` event carries it. */
export type RowRenderEvent = Exclude<RenderEvent, {type: 'error'}> & {row: number}

export type BatchEventListener = (event: BatchEvent) => void
