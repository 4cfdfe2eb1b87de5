import type {BatchEntry} from '../lib/lambda/batch/batch-items.js'
import type {BatchProgress} from '../lib/lambda/batch/batch-progress.js'
import {countText, durationText} from 'html-video-engine/internal/cli/quantity-text.js'

/** `line 3  out/ada.mp4  started  arn:…` as render-batch prints each line. */
export function entryLine(entry: BatchEntry): string {
  const parts = [`line ${entry.line}`, entry.outputKey ?? '(no outputKey)', entry.status]
  if (entry.executionArn) parts.push(entry.executionArn)
  if (entry.error) parts.push(`${entry.status === 'invalid' ? 'would fail: ' : ''}[${entry.error.code}] ${entry.error.message}`)
  return parts.join('  ')
}

/**
 * Prints entries as they come: one line each, or (--json) the elements of one JSON array, so that
 * a batch of any size is printed without holding its entries.
 */
export class EntryPrinter {
  private count = 0

  constructor(
    readonly json: boolean,
    private readonly log: (line: string) => void,
  ) {}

  entry(entry: BatchEntry): void {
    if (!this.json) this.log(entryLine(entry))
    else process.stdout.write(`${this.count === 0 ? '[\n' : ',\n'}  ${JSON.stringify(entry)}`)
    this.count++
  }

  end(): void {
    if (this.json) process.stdout.write(this.count === 0 ? '[]\n' : '\n]\n')
  }
}



/** `batch lx…-0f3c2a run 1 RUNNING: 812/1,234 rows succeeded · 3 failed · …` */
export function batchProgressLine(progress: BatchProgress): string {
  const {rows} = progress
  const parts = [`${countText(rows.succeeded)}/${countText(rows.total - rows.rejected)} rows succeeded`]
  if (rows.failed > 0) parts.push(`${countText(rows.failed)} failed`)
  if (rows.skipped > 0) parts.push(`${countText(rows.skipped)} skipped`)
  parts.push(`${countText(rows.running)} running`, `${countText(rows.pending)} pending`)
  if (rows.rejected > 0) parts.push(`${countText(rows.rejected)} failed to start`)
  parts.push(`${progress.rowsPerMinute} rows/min`)
  if (progress.etaSeconds !== undefined) parts.push(`ETA ${durationText(progress.etaSeconds)}`)
  if (progress.frames.total !== undefined) parts.push(`frames ${countText(progress.frames.done)}/${countText(progress.frames.total)}`)
  if (progress.cost) parts.push(`~$${progress.cost.usd.toFixed(4)} so far`)
  return `batch ${progress.batchId} run ${progress.run} ${progress.status}: ${parts.join(' · ')}`
}
