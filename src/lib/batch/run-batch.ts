import {randomUUID} from 'node:crypto'
import {dirname, relative, resolve} from 'node:path'
import {isEngineError, toEngineError} from '../errors/engine-error.js'
import {fileSha256} from '../files/file-sha256.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {RowWarnings} from './row-warnings.js'
import type {CompiledComposition} from '../compose/compile-composition.js'
import type {RenderRequest, RenderResult} from '../render/render-composition.js'
import {isRowDone, type RowWarning, type StatusCounts} from './batch-manifest.js'
import type {BatchEvent, BatchEventListener} from './batch-events.js'
import type {ManifestStore} from './manifest-store.js'
import type {BatchJob} from './preflight.js'
import {checkInRender, checkRowText, type RowCheckOutcome, type RowTextCheck} from './row-text-check.js'
import type {ShardSpec} from '../shard/shard-spec.js'
import {batchPayload, deliverWebhook, renderPayload, type WebhookDelivery, type WebhookTarget} from '../notify/index.js'
import {endSpan, spanStart, traceSpan} from '../trace/timeline.js'
import {faultPoint} from '../trace/fault-point.js'

/**
 * Renders one row. The batch runner never launches browsers itself: the caller passes
 * `renderComposition`, or a function that closes over shared resources (a pool of warm browser
 * processes) so that rows reuse them.
 */
export type RenderRow = (request: RenderRequest) => Promise<Pick<RenderResult, 'output' | 'durationSeconds' | 'poster'> & Partial<Pick<RenderResult, 'totalFrames' | 'bytes' | 'fetchedUrls' | 'cached' | 'sha256'>>>

export interface RunBatchOptions {
  composition: string
  /** Options shared by every row; each row gets its own `output`. */
  options: ResolvedRenderOptions
  /** Every row of the batch, in order, as a stream; rows the store records as completed are not rendered again. */
  jobs: AsyncIterable<BatchJob>
  /** Rows this run's manifest holds: the batch's, or its shard's. */
  total: number
  /** The part of the batch this run renders (`--shard`), for the batch-start event. */
  shard?: ShardSpec
  /** Holds the manifest. */
  store: ManifestStore
  render: RenderRow
  /** The composition compiled once, without top-level values; each row applies its own. */
  template?: CompiledComposition
  concurrency: number
  failFast: boolean
  signal?: AbortSignal
  onEvent?: BatchEventListener
  /** Called once per finished row and once for the batch; deliveries are recorded in the manifest. */
  webhook?: WebhookTarget
  /** The check pass before each row's render (`--on-overflow`, `--check-only`). */
  textCheck?: RowTextCheck
  /** The result sheet: written once the manifest is final, before the batch reports itself done. */
  results?: {path: string; write: () => Promise<void>}
}

/** Failed rows and undelivered webhooks the summary names; the manifest has them all. */
export const MAX_SUMMARY_ENTRIES = 100

export interface BatchSummary {
  counts: StatusCounts
  manifest: string
  elapsedMs: number
  /** The first MAX_SUMMARY_ENTRIES failed rows (`counts.failed` says how many there are). */
  failed: Array<{row: number; code: string; message: string}>
  /** Webhook calls that were not delivered (each is also in the manifest); the first MAX_SUMMARY_ENTRIES. */
  undeliveredWebhooks: Array<WebhookDelivery & {row: number | null}>
  /** The result sheet, when one was written. */
  results?: string
}

/**
 * Runs the rows not yet completed, `concurrency` at a time, in row order, pulling them from the
 * stream as workers free up. A failed row is recorded and the others go on; with `failFast` no row
 * is launched after the first failure, and rows never launched (after a failure or an
 * interruption) end as `skipped`, all together. Each change is in the manifest's journal before the
 * matching event is emitted.
 */
export async function runBatch(options: RunBatchOptions): Promise<BatchSummary> {
  const {store, signal} = options
  const emit = options.onEvent ?? (() => {})
  const started = performance.now()
  const pending = (async function* () {
    for await (const job of options.jobs) if (!isRowDone(store.status(job.index))) yield job
  })()
  const toRender = options.total - store.counts.completed - store.counts.cached
  let halt: string | undefined
  const batchId = randomUUID()
  const deliveries = new Set<Promise<void>>()
  const undelivered: BatchSummary['undeliveredWebhooks'] = []
  const failed: BatchSummary['failed'] = []
  const recordDelivery = (row: number | null, delivery: WebhookDelivery) => {
    if (!delivery.delivered && undelivered.length < MAX_SUMMARY_ENTRIES) undelivered.push({...delivery, row})
    emit({type: 'webhook', row, ...delivery})
  }
  // A row's call goes out after its manifest entry is saved and runs beside the next rows.
  const notifyRow = (job: BatchJob) => {
    const target = options.webhook
    if (!target) return
    const {status, renderMs, durationSeconds, error, poster} = store.row(job.index)
    const payload = renderPayload({
      id: `${batchId}/${job.index}`,
      output: job.url ?? job.output,
      poster: poster === undefined ? null : resolve(dirname(store.path), poster),
      durationSeconds,
      renderMs,
      error: status === 'failed' ? error : null,
      row: {index: job.index, data: job.data ?? {}},
    })
    const delivery = deliverWebhook(target, payload).then(async (delivery) => {
      await store.patchRow(job.index, {webhook: delivery})
      recordDelivery(job.index, delivery)
    })
    deliveries.add(delivery)
    void delivery.finally(() => deliveries.delete(delivery)).catch(() => {})
  }
  emit({
    type: 'batch-start',
    composition: options.composition,
    manifest: store.path,
    rows: options.total,
    toRender,
    concurrency: options.concurrency,
    failFast: options.failFast,
    ...(options.shard && {shard: options.shard}),
    ...(options.textCheck?.checkOnly && {checkOnly: true as const}),
  })

  const rowEvent = (job: BatchJob): BatchEvent => {
    const {status, renderMs, durationSeconds, error, skippedReason} = store.row(job.index)
    return {type: 'row', row: job.index, status, output: job.url ?? job.output, renderMs, durationSeconds, error, skippedReason, ...(job.data && {data: job.data})}
  }

  /** `onCaptured` is told once the row's frames are all captured (its browsers are free again). */
  const runRow = async (job: BatchJob, onCaptured: () => void): Promise<void> => {
    const startedAt = new Date().toISOString()
    await traceSpan('row-bookkeeping', {}, () => store.setRow(job.index, {status: 'running', startedAt}))
    emit(rowEvent(job))
    const began = performance.now()
    let warnings: RowWarning[] = []
    let unchecked: RowWarning[] = []
    let skippedReason: string | undefined
    const onChecked = (checked: RowCheckOutcome) => {
      warnings = checked.warnings
      unchecked = checked.unchecked ? [checked.unchecked] : []
      skippedReason = checked.skippedReason
      for (const {code, message} of warnings) emit({type: 'warning', code, message, row: job.index})
    }
    const skipRow = async (reason: string) => {
      const finishedAt = new Date().toISOString()
      await store.setRow(job.index, {status: 'skipped', startedAt, finishedAt, skippedReason: reason, ...rowWarnings()})
      emit(rowEvent(job))
    }
    const pageWarnings = new RowWarnings()
    /** The manifest field: the check pass's findings, then the render's own (page errors under `--page-errors warn`). */
    const rowWarnings = (): {warnings?: RowWarning[]} => {
      const all = [...warnings, ...unchecked, ...pageWarnings.all()]
      return all.length > 0 ? {warnings: all} : {}
    }
    try {
      const request: RenderRequest = {
        composition: options.composition,
        options: {...options.options, output: job.output},
        variables: job.overrides,
        template: options.template,
        // renderBatch removed what killed renders left beside every row's output before the first row.
        partialsSwept: true,
        // Rows at once are how a batch fills the cores, within a memory budget of one page a worker.
        pagesPerWorker: 1,
        signal,
        onEvent: (event) => {
          if (event.type === 'stage' && event.stage === 'assemble') onCaptured()
          pageWarnings.see(event)
          if (event.type !== 'error') emit({...event, row: job.index})
        },
      }
      if (options.textCheck?.inRender) checkInRender(options.textCheck, job.index, request, onChecked)
      else if (options.textCheck) {
        const checked = await checkRowText(options.textCheck, job.index, request)
        onChecked(checked)
        if (checked.error) throw checked.error
        if (checked.skippedReason !== undefined) return await skipRow(checked.skippedReason)
      }
      const result = await options.render(request)
      await faultPoint('row-output-renamed')
      const renderMs = Math.round(performance.now() - began)
      const booking = spanStart()
      // The render cache hashed a hit's copy (and a stored output) already.
      const sha256 = result.sha256 ?? (await fileSha256(result.output))
      await store.setRow(job.index, {
        status: result.cached ? 'cached' : 'completed',
        startedAt,
        finishedAt: new Date().toISOString(),
        renderMs,
        durationSeconds: result.durationSeconds,
        totalFrames: result.totalFrames,
        bytes: result.bytes,
        ...(sha256 !== undefined && {sha256}),
        fetchedUrls: result.fetchedUrls,
        ...(result.poster && {poster: relative(dirname(store.path), result.poster)}),
        ...rowWarnings(),
      })
      endSpan('row-bookkeeping', booking)
    } catch (error) {
      // A render that checked its own page stopped before its capture to skip the row.
      if (skippedReason !== undefined && !signal?.aborted) return await skipRow(skippedReason)
      const {code, message} = toEngineError(error)
      const renderMs = Math.round(performance.now() - began)
      await store.setRow(job.index, {status: 'failed', startedAt, finishedAt: new Date().toISOString(), renderMs, error: {code, message}, ...rowWarnings()})
      if (failed.length < MAX_SUMMARY_ENTRIES) failed.push({row: job.index, code, message})
      if (options.failFast && !isEngineError(error, 'CANCELLED')) halt ??= `row ${job.index} failed and --batch-fail-fast is set`
    }
    emit(rowEvent(job))
    notifyRow(job)
  }

  // Rows are pipelined: once a row's frames are captured, its worker starts the next row while the
  // first one assembles and muxes (ffmpeg only, no browser), so the capture of a short row never
  // waits for the assembly of the one before. A worker has at most two rows in flight: the row
  // after those starts only once the older one has finished. Rows may finish out of order.
  const worker = async (): Promise<void> => {
    let assembling: Promise<void> = Promise.resolve()
    try {
      for (let next = await pending.next(); !next.done; next = await pending.next()) {
        const job = next.value
        if (signal?.aborted) halt ??= 'the batch was interrupted'
        if (halt !== undefined) return
        let captured!: () => void
        const capturedOrEnded = new Promise<void>((resolve) => (captured = resolve))
        const row = runRow(job, captured).catch((error: unknown) => {
          halt ??= 'the batch manifest could not be written'
          throw error
        })
        row.then(captured, captured)
        await capturedOrEnded
        await assembling
        assembling = row
      }
    } finally {
      await assembling
    }
  }

  const workers = Array.from({length: Math.max(1, Math.min(options.concurrency, toRender))}, () => worker())
  // A worker only rejects when the manifest cannot be written; the others finish their rows first.
  const outcomes = await Promise.allSettled(workers)
  const rejected = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
  if (rejected) {
    await store.close()
    throw rejected.reason
  }

  await pending.return(undefined)
  // Rows never launched are skipped together: one journal record, one event, however many rows
  // are left (an interrupted batch of 100,000 rows stops in seconds, not in 100,000 writes).
  const reason = `not launched: ${halt ?? 'the batch was interrupted'}`
  const skipped = await store.skipPending(reason)
  if (skipped > 0) emit({type: 'rows-skipped', count: skipped, reason})
  await Promise.all(deliveries)

  const elapsedMs = Math.round(performance.now() - started)
  const counts = store.counts
  if (options.webhook) {
    const delivery = await deliverWebhook(options.webhook, batchPayload({id: batchId, manifest: store.path, elapsedMs, counts}))
    store.setWebhook(delivery)
    recordDelivery(null, delivery)
  }
  await store.finish()
  await options.results?.write()
  const rowsPerMinute = elapsedMs > 0 ? Math.round(((counts.completed + counts.cached) * 60_000 * 10) / elapsedMs) / 10 : 0
  const results = options.results?.path
  emit({type: 'batch-done', counts, manifest: store.path, elapsedMs, rowsPerMinute, ...(results !== undefined && {results})})
  return {counts, manifest: store.path, elapsedMs, failed, undeliveredWebhooks: undelivered, ...(results !== undefined && {results})}
}
