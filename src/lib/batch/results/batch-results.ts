import {rm} from 'node:fs/promises'
import {basename, dirname, join, resolve} from 'node:path'
import type {ManifestStore} from '../manifest-store.js'
import type {BatchJob} from '../preflight.js'
import {resultRow} from './result-row.js'
import {resultSheetFormat, writeResultSheet, type ResultSheetRow} from './result-sheet.js'

/** The sheet a batch writes beside its manifest unless told otherwise (`--results`). */
export const RESULTS_FILE = 'results.csv'

/** Distinct column names a sheet takes from the rows; a file whose every row has keys of its own stays bounded. */
export const MAX_SHEET_COLUMNS = 1000

/** `results.csv` beside `manifest.json`; a shard's sheet beside its manifest (`manifest.shard-1-of-4.json` → `results.shard-1-of-4.csv`), so shards sharing a folder never write one file. */
function defaultSheetName(manifestName: string): string {
  const shard = /^manifest(\.shard-\d+-of-\d+)\.json$/.exec(manifestName)
  return shard ? `results${shard[1]}.csv` : RESULTS_FILE
}

/** Where a batch's sheet goes: `--results` (checked: .csv or .jsonl), else results.csv beside the manifest. */
export function resultsPath(manifestPath: string, requested: string | undefined, cwd: string): string {
  if (requested === undefined) return join(dirname(manifestPath), defaultSheetName(basename(manifestPath)))
  resultSheetFormat(requested)
  return resolve(cwd, requested)
}

/** The rows' column names in the order first seen, over every row (one pass over the stream). */
export async function rowColumns(rows: AsyncIterable<{columns?: Record<string, unknown>}>): Promise<string[]> {
  const names = new Set<string>()
  for await (const row of rows) for (const name of Object.keys(row.columns ?? {})) if (names.size < MAX_SHEET_COLUMNS) names.add(name)
  return [...names]
}

/**
 * A running or finished local batch's result sheet: the manifest's state (the store, in memory)
 * joined with the rows as read (the job spool), in row order. `columns` come from rowColumns over
 * the same spool; it does not change while the batch runs, so a caller that rewrites the sheet
 * reads them once.
 */
export async function writeBatchResults(path: string, store: ManifestStore, jobs: () => AsyncIterable<BatchJob>, columns: readonly string[]): Promise<void> {
  const directory = dirname(path)
  const manifestDirectory = dirname(store.path)
  async function* rows(): AsyncGenerator<ResultSheetRow> {
    for await (const job of jobs()) {
      const record = store.row(job.index)
      yield resultRow({record, columns: job.columns ?? {}, output: job.output, poster: record.poster === undefined ? undefined : resolve(manifestDirectory, record.poster)}, directory)
    }
  }
  await writeResultSheet(path, columns, rows())
}

/** A sheet left by an earlier run stops being true once rows render again: it goes before the first row does. */
export async function removeStaleResults(path: string): Promise<void> {
  await rm(path, {force: true})
}
