import {relative} from 'node:path'
import type {BatchEvent, BatchEventListener, BatchSummary} from '../lib/batch/index.js'
import {EngineError} from '../lib/errors/engine-error.js'
import {describeShard} from '../lib/shard/shard-spec.js'
import {inListrTask, writeWarning} from './render-progress.js'
import {countText, durationText} from './quantity-text.js'
import {terminalText} from './terminal-text.js'

/** `--json`: every batch event, row render events included, as one line of JSON on stdout. */
export function batchJsonLines(event: BatchEvent): void {
  process.stdout.write(JSON.stringify(event) + '\n')
}

function display(path: string): string {
  return relative(process.cwd(), path) || path
}

/**
 * One line per row status change, so that the log reads the same with any number of rows in
 * flight; warnings go to stderr. Frame progress inside a row is left to `--json`.
 */
export function batchLines(log: (line: string) => void, now: () => number = Date.now): BatchEventListener {
  const tally = new BatchTally(now)
  let rateShownAt = 0
  let doing = 'rendering'
  return (event) => {
    tally.add(event)
    if (event.type === 'batch-start') {
      rateShownAt = now()
      doing = event.checkOnly ? 'checking' : 'rendering'
      log(startLine(event))
    } else if (event.type === 'row') {
      const where = `row ${event.row} (${display(event.output)})`
      if (event.status === 'running') log(`${where}: ${doing}`)
      else if (event.status === 'completed') log(`${where}: done in ${((event.renderMs ?? 0) / 1000).toFixed(1)} s`)
      else if (event.status === 'cached') log(`${where}: cached (an identical render was reused) in ${((event.renderMs ?? 0) / 1000).toFixed(1)} s`)
      else if (event.status === 'failed') log(`${where}: failed [${event.error?.code}] ${event.error?.message}`)
      else if (event.status === 'skipped') log(`${where}: skipped, ${event.skippedReason}`)
      // A log that is piped has no live line: the rate and ETA come as a line of their own now and then.
      if (event.status !== 'running' && now() - rateShownAt >= RATE_LINE_INTERVAL_MS) {
        rateShownAt = now()
        log(tally.describe())
      }
    } else if (event.type === 'rows-skipped') log(skippedLine(event))
    else if (event.type === 'warning') warn(event)
    else if (event.type === 'batch-done') log(doneLine(event))
  }
}

/** How often a piped batch log says its rate and ETA. */
export const RATE_LINE_INTERVAL_MS = 10_000

function skippedLine(event: Extract<BatchEvent, {type: 'rows-skipped'}>): string {
  return `${countText(event.count)} row${event.count === 1 ? '' : 's'} skipped, ${event.reason}`
}

function startLine(event: Extract<BatchEvent, {type: 'batch-start'}>): string {
  const already = event.rows - event.toRender
  const shard = event.shard ? `, ${describeShard(event.shard)}` : ''
  if (event.checkOnly) return `Checking ${event.toRender} of ${event.rows} rows${shard} (--check-only: nothing is rendered), ${event.concurrency} at a time; manifest ${display(event.manifest)}`
  return `Rendering ${event.toRender} of ${event.rows} rows${shard}, ${event.concurrency} at a time${already > 0 ? ` (${already} already completed)` : ''}; manifest ${display(event.manifest)}`
}

function doneLine(event: Extract<BatchEvent, {type: 'batch-done'}>): string {
  const {completed, failed, skipped, cached} = event.counts
  const results = event.results === undefined ? '' : `; results ${display(event.results)}`
  return `${completed} completed, ${cached > 0 ? `${cached} cached, ` : ''}${failed} failed, ${skipped} skipped in ${(event.elapsedMs / 1000).toFixed(1)} s (${event.rowsPerMinute} rows/min); manifest ${display(event.manifest)}${results}`
}

/** A batch's warnings and notes, and those of a row's render (which name the row). */
function warn(event: Extract<BatchEvent, {type: 'warning'}>): void {
  const row = 'row' in event ? `row ${event.row}: ` : ''
  writeWarning({...event, message: row + event.message})
}

/** Rows done, failed and left of a running batch, and the rate that gives its ETA. */
export class BatchTally {
  total = 0
  private toRender = 0
  private already = 0
  completed = 0
  failed = 0
  skipped = 0
  cached = 0
  private startedAt = 0
  private checkOnly = false

  constructor(private readonly now: () => number = Date.now) {}

  add(event: BatchEvent): void {
    if (event.type === 'batch-start') {
      this.total = event.rows
      this.toRender = event.toRender
      this.already = event.rows - event.toRender
      this.startedAt = this.now()
      this.checkOnly = event.checkOnly === true
    } else if (event.type === 'row') {
      if (event.status === 'completed') this.completed++
      else if (event.status === 'failed') this.failed++
      else if (event.status === 'skipped') this.skipped++
      else if (event.status === 'cached') this.cached++
    } else if (event.type === 'rows-skipped') this.skipped += event.count
  }

  /** `812/1,234 rows done · 3 failed · 98.5 rows/min · ETA 4m 12s`. */
  describe(): string {
    const minutes = (this.now() - this.startedAt) / 60_000
    const finished = this.completed + this.cached + this.failed + this.skipped
    const perMinute = minutes > 0 ? finished / minutes : 0
    const left = this.toRender - finished
    // Under --check-only a checked row ends skipped (not rendered): those are the rows done.
    const parts = this.checkOnly ? [`${countText(this.already + finished)}/${countText(this.total)} rows checked`] : [`${countText(this.already + this.completed + this.cached)}/${countText(this.total)} rows done`]
    if (this.cached > 0) parts.push(`${countText(this.cached)} cached`)
    if (this.failed > 0) parts.push(`${countText(this.failed)} failed`)
    if (this.skipped > 0 && !this.checkOnly) parts.push(`${countText(this.skipped)} skipped`)
    parts.push(`${perMinute.toFixed(1)} rows/min`)
    parts.push(finished > 0 && left > 0 ? `ETA ${durationText((left / perMinute) * 60)}` : left > 0 ? 'ETA …' : 'finishing')
    return parts.join(' · ')
  }
}


/**
 * How a batch reports itself in a terminal: one live line (rows done / failed / total, rows per
 * minute, ETA) under a listr2 task, failures and warnings on stderr as they happen, and the summary
 * at the end. Piped output keeps one line per row change (`batchLines`), `--json` the events.
 */
export function withBatchProgress<T>(mode: {json: boolean; quiet: boolean}, log: (line: string) => void, run: (onEvent?: BatchEventListener) => Promise<T>): Promise<T> {
  if (mode.json) return run(batchJsonLines)
  if (mode.quiet) return run(undefined)
  if (!process.stderr.isTTY) return run(batchLines(log))
  const tally = new BatchTally()
  let done: Extract<BatchEvent, {type: 'batch-done'}> | undefined
  const finished = inListrTask('Batch', async (task) => {
    const refresh = () => (task.output = tally.describe())
    const timer = setInterval(refresh, 1000)
    try {
      return await run((event) => {
        tally.add(event)
        if (event.type === 'batch-start') task.title = startLine(event)
        else if (event.type === 'warning') warn(event)
        else if (event.type === 'row' && event.status === 'failed') process.stderr.write(terminalText(`row ${event.row} (${display(event.output)}): failed [${event.error?.code}] ${event.error?.message}`) + '\n')
        else if (event.type === 'rows-skipped') process.stderr.write(skippedLine(event) + '\n')
        else if (event.type === 'batch-done') done = event
        if (event.type === 'row' && event.status !== 'running') refresh()
      })
    } finally {
      clearInterval(timer)
    }
  })
  return finished.then((result) => {
    if (done) log(doneLine(done))
    return result
  })
}

/** Failed rows the error names; the manifest has them all. */
const MAX_NAMED_FAILURES = 20

/** A batch with failed rows exits non-zero; the error names the failed rows (the first 20). */
export function assertNoFailedRows(summary: BatchSummary): void {
  if (summary.counts.failed === 0) return
  const total = Object.values(summary.counts).reduce((sum, count) => sum + count, 0)
  const named = summary.failed.slice(0, MAX_NAMED_FAILURES)
  const rows = named.map((row) => `  - row ${row.row}: [${row.code}] ${row.message}`).join('\n')
  const more = summary.counts.failed > named.length ? `\n  … and ${summary.counts.failed - named.length} more` : ''
  throw new EngineError(
    'BATCH_ROW_FAILED',
    `${summary.counts.failed} of ${total} rows failed:\n${rows}${more}\nDetails are in ${display(summary.manifest)}; run again with --resume to render only the rows that are not completed.`,
    {failed: named, manifest: summary.manifest},
  )
}
